// Every language has every message with the same slots as English and as MESSAGE_SLOTS; Accept-Language, the switch and the cookie pick the language.
import { describe, expect, it } from 'vitest';
import { LANGS, LANG_COOKIE, langCookie, langOf, pickLang, requestLang } from '../../contracts/i18n';
import { MESSAGE_SLOTS, slotsOf } from '../../contracts/page-words';
import { MESSAGES } from '../../src/pages/waiting-messages';
import { CHECK_MESSAGES } from '../../src/pages/check-messages';
import { SIGN_IN_MESSAGES } from '../../src/pages/sign-in-messages';
import { waitingView, type ViewStatus } from '../../src/pages/waiting-view';

const slots = slotsOf;

describe('waiting page messages', () => {
  for (const [page, tables] of [
    ['waiting page', MESSAGES],
    ['check step', CHECK_MESSAGES],
    ['sign-in page', SIGN_IN_MESSAGES],
  ] as const) {
    const english = tables.en as Record<string, string>;
    const keys = Object.keys(english).sort();
    for (const lang of LANGS) {
      it(`${page}, ${lang}: has exactly the English keys, none empty, with the same {slots}`, () => {
        const table = tables[lang] as Record<string, string>;
        expect(Object.keys(table).sort()).toEqual(keys);
        for (const key of keys) {
          expect(table[key]!.trim(), `${lang}.${key}`).not.toBe('');
          expect(slots(table[key]!), `${lang}.${key}`).toEqual(slots(english[key]!));
        }
      });
    }
  }

  it('the English words have exactly the keys and {slots} the organizer API checks replacements against', () => {
    expect(Object.keys(MESSAGES.en).sort()).toEqual(Object.keys(MESSAGE_SLOTS).sort());
    for (const [key, want] of Object.entries(MESSAGE_SLOTS))
      expect(slots(MESSAGES.en[key as keyof typeof MESSAGE_SLOTS]), key).toEqual([...want]);
  });

  it('a lottery pre-queue never reads as "paused"', () => {
    const status: ViewStatus = {
      state: 'not_open',
      policy: 'random',
      position: null,
      ahead: null,
      estimatedWaitSeconds: null,
      saleStartsAt: new Date(Date.now() + 60_000).toISOString(),
    };
    for (const lang of LANGS) {
      const v = waitingView(status, MESSAGES[lang], lang, Date.now());
      expect(v.phase).toBe('prequeue');
      expect(v.wait).toBe('');
      const all = [v.headline, v.sub, v.bigLabel, v.ahead, v.wait].join(' ');
      const pausedWords = [
        'paused',
        '暫停',
        '暂停',
        '一時停止',
        '일시 중지',
        'pausa',
        'angehalten',
        'en pause',
        'pausada',
        'หยุดชั่วคราว',
        'tạm dừng',
        'dijeda',
      ];
      for (const paused of pausedWords) expect(all).not.toContain(paused);
    }
  });
});

describe('waiting view', () => {
  const base: ViewStatus = { state: 'waiting', policy: 'fifo', position: 4, ahead: 3, estimatedWaitSeconds: 600, saleStartsAt: null };
  const now = Date.parse('2026-12-01T10:00:00Z');
  const cases: [string, Partial<ViewStatus>, Partial<ReturnType<typeof waitingView>>][] = [
    ['in line', {}, { phase: 'waiting', big: '#4', ahead: '3 people ahead of you', wait: 'Estimated wait: about 8-13 min', step: 1 }],
    ['next', { position: 1, ahead: 0, estimatedWaitSeconds: 20 }, { ahead: 'You are next.', wait: 'Estimated wait: less than a minute' }],
    ['no estimate yet', { estimatedWaitSeconds: null }, { wait: 'Estimated wait: we cannot estimate it yet' }],
    ['paused', { state: 'paused' }, { phase: 'paused', wait: 'Estimated wait: on hold while the line is paused', step: 1 }],
    [
      'FIFO before the sale',
      { state: 'not_open', saleStartsAt: '2026-12-01T11:02:03Z' },
      { phase: 'not_open', big: '#4', countdown: 'Starts in 1:02:03', step: 0 },
    ],
    [
      // Place #1 of a lane that opens in 4:46 read "about 3-7 min".
      'first place, the line opens in 4:46',
      { state: 'not_open', position: 1, ahead: 0, estimatedWaitSeconds: 292, saleStartsAt: '2026-12-01T10:04:46Z' },
      { phase: 'not_open', wait: 'Estimated wait: about 4-5 min', countdown: 'Starts in 4:46' },
    ],
    [
      'lottery pre-queue',
      { state: 'not_open', policy: 'random', position: null, ahead: null, saleStartsAt: '2026-12-01T10:05:09Z' },
      { phase: 'prequeue', bigLabel: 'The sale starts in', big: '5:09', ahead: '', wait: '', step: 0 },
    ],
    ['lottery drawing', { policy: 'random', position: null, ahead: null }, { phase: 'drawing', headline: 'Drawing places', big: '…' }],
    ['sold out', { state: 'sold_out', position: null, ahead: null }, { phase: 'sold_out', headline: 'Sold out', big: '', step: -1 }],
    ['closed', { state: 'closed', position: null, ahead: null }, { phase: 'closed', headline: 'The sale has ended', step: -1 }],
  ];
  for (const [name, change, want] of cases) {
    it(name, () => expect(waitingView({ ...base, ...change }, MESSAGES.en, 'en', now)).toMatchObject(want));
  }
});

describe('page language', () => {
  it('picks from Accept-Language by quality, Traditional Chinese for Taiwan and Hong Kong, Simplified for zh and China', () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'en'],
      ['nl-NL, sv;q=0.8', 'en'],
      ['fr-FR, de;q=0.8', 'fr'],
      ['zh-MO', 'zh-Hant'],
      ['zh-SG', 'zh-Hans'],
      ['zh-TW,zh;q=0.9,en;q=0.8', 'zh-Hant'],
      ['zh-HK', 'zh-Hant'],
      ['zh-Hant-CN', 'zh-Hant'],
      ['zh', 'zh-Hans'],
      ['zh-CN,en;q=0.5', 'zh-Hans'],
      ['ja-JP', 'ja'],
      ['ko-KR,ko;q=0.9', 'ko'],
      ['es-419', 'es'],
      ['nl;q=1, es;q=0.9, en;q=0.8', 'es'],
      ['en;q=0.2, ja;q=0.9', 'ja'],
      ['ja;q=0, ko', 'ko'],
    ];
    for (const [header, lang] of cases) expect(pickLang(header), String(header)).toBe(lang);
  });

  it("picks each newer language from its usual browser tags; any Portuguese falls back to Brazil's, the old `in` is Indonesian", () => {
    const cases: [string, string][] = [
      ['de-DE,de;q=0.9,en;q=0.8', 'de'],
      ['de-AT', 'de'],
      ['de-CH', 'de'],
      ['fr-CA', 'fr'],
      ['fr-BE,en;q=0.5', 'fr'],
      ['it-IT', 'it'],
      ['pt-BR,pt;q=0.9', 'pt-BR'],
      ['pt', 'pt-BR'],
      ['pt-PT', 'pt-BR'],
      ['th-TH', 'th'],
      ['th', 'th'],
      ['vi-VN,vi;q=0.9', 'vi'],
      ['id-ID', 'id'],
      ['in-ID', 'id'],
      ['ms-MY, id;q=0.7', 'id'],
      ['nl, pt-br;q=0.6, en;q=0.5', 'pt-BR'],
    ];
    for (const [header, lang] of cases) expect(pickLang(header), header).toBe(lang);
    for (const lang of LANGS) expect(langOf(lang.toLowerCase()), lang).toBe(lang);
    expect(requestLang({ query: 'pt-BR', acceptLanguage: 'de' })).toEqual({ lang: 'pt-BR', chosen: 'pt-BR' });
    expect(requestLang({ cookie: `${LANG_COOKIE}=th`, acceptLanguage: 'de' }).lang).toBe('th');
  });

  it('the switch (?lang=) wins and is reported as chosen; the remembered cookie comes before Accept-Language', () => {
    expect(requestLang({ query: 'ko', acceptLanguage: 'ja' })).toEqual({ lang: 'ko', chosen: 'ko' });
    expect(requestLang({ query: 'xx', cookie: `${LANG_COOKIE}=es`, acceptLanguage: 'ja' })).toEqual({ lang: 'es', chosen: null });
    expect(requestLang({ cookie: `a=b; ${LANG_COOKIE}=zh-Hant`, acceptLanguage: 'ja' }).lang).toBe('zh-Hant');
    expect(requestLang({ cookie: `${LANG_COOKIE}=<script>`, acceptLanguage: 'ja' }).lang).toBe('ja');
    // A malformed percent escape is no language (percent-decoding threw: a 500 for the page).
    expect(requestLang({ cookie: `${LANG_COOKIE}=%E0%A4`, acceptLanguage: 'ja' }).lang).toBe('ja');
    expect(langOf('EN-gb')).toBe('en');
    expect(langCookie('ja', true)).toBe(`${LANG_COOKIE}=ja; Path=/; Max-Age=31536000; SameSite=Lax; Secure`);
  });
});
