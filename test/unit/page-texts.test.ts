// An event's own words for the pages (`page.texts`): what the organizer API accepts and refuses, and how they apply.
import { describe, expect, it } from 'vitest';
import { MAX_PAGE_TEXTS_TOTAL, MAX_PAGE_TEXT_LENGTH, withPageTexts } from '../../contracts/page-words';
import { pageTemplateInput } from '../../contracts/event-input';
import { MESSAGES } from '../../src/pages/waiting-messages';

/** The first issue as the organizer API reports it (`path: message`, src/lib/validate.ts). */
function refusal(texts: unknown): string | null {
  const result = pageTemplateInput().safeParse({ texts });
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  return `${issue.path.join('.')}: ${issue.message}`;
}

describe('page.texts', () => {
  it('accepts any subset of known languages and keys whose {slots} are those of English, in any order', () => {
    const texts = {
      en: { h_waiting: 'You are in the queue', ahead: 'People in front of you: {n}' },
      de: { waitRange: 'Wartezeit: {lo} bis {hi} Minuten', h_sold_out: 'Leider ausverkauft' },
      'pt-BR': { drawRank: '{total} participantes; {id} é o nº {rank}' },
      th: {},
    };
    expect(refusal(texts)).toBeNull();
    expect(pageTemplateInput().parse({ texts }).texts).toEqual(texts);
  });

  const refused: [string, unknown, string][] = [
    ['an unknown language', { xx: { h_waiting: 'x' } }, 'texts: Unrecognized key: "xx"'],
    ['a language by a tag other than ours', { 'pt-PT': { h_waiting: 'x' } }, 'texts: Unrecognized key: "pt-PT"'],
    ['an unknown key', { de: { h_waiting: 'Warten', h_nope: 'x' } }, 'texts.de: Unrecognized key: "h_nope"'],
    [
      'a dropped placeholder',
      { fr: { ahead: 'Des gens devant vous' } },
      'texts.fr.ahead: must keep the placeholders {n}, each once, and no others',
    ],
    [
      'one of two placeholders dropped',
      { it: { waitRange: 'Attesa: {lo} min' } },
      'texts.it.waitRange: must keep the placeholders {hi}, {lo}, each once, and no others',
    ],
    [
      'a placeholder twice',
      { en: { ahead: '{n} ahead ({n})' } },
      'texts.en.ahead: must keep the placeholders {n}, each once, and no others',
    ],
    ['a placeholder of its own', { en: { h_waiting: 'In line as {name}' } }, 'texts.en.h_waiting: must have no {placeholders}'],
    ['an empty string', { en: { title: '' } }, 'texts.en.title: Too small: expected string to have >=1 characters'],
    [
      'a string over the length bound',
      { en: { title: 'x'.repeat(MAX_PAGE_TEXT_LENGTH + 1) } },
      `texts.en.title: Too big: expected string to have <=${MAX_PAGE_TEXT_LENGTH} characters`,
    ],
    ['a control character', { vi: { title: 'Phòng\u0000chờ' } }, 'texts.vi.title: control characters and bidi overrides are not allowed'],
    ['a bidi override', { th: { title: 'ห้อง\u202eรอ' } }, 'texts.th.title: control characters and bidi overrides are not allowed'],
    ['a number for a string', { id: { title: 7 } }, 'texts.id.title: Invalid input: expected string, received number'],
    ['a list for a language', { en: ['x'] }, 'texts.en: Invalid input: expected record, received array'],
  ];
  for (const [name, texts, detail] of refused) it(`refuses ${name}, naming the field`, () => expect(refusal(texts)).toBe(detail));

  it('refuses more than the total bound over all languages, each string within its own', () => {
    const full = (n: number) => Object.fromEntries(['title', 'lang', 'steps', 'next', 'verify'].map((k) => [k, 'x'.repeat(n)]));
    const per = MAX_PAGE_TEXT_LENGTH;
    const langs = Math.ceil(MAX_PAGE_TEXTS_TOTAL / (5 * per)) + 1;
    const texts = Object.fromEntries(
      ['en', 'de', 'fr', 'it', 'es', 'ja', 'ko', 'th', 'vi', 'id'].slice(0, langs).map((l) => [l, full(per)]),
    );
    expect(refusal(texts)).toBe(`texts: all replacements together must be at most ${MAX_PAGE_TEXTS_TOTAL} characters`);
  });

  it('replaces only the given keys of the given language, and leaves the shared words unchanged', () => {
    const de = MESSAGES.de;
    const before = { ...de };
    const t = withPageTexts(de, { de: { h_waiting: 'Sie stehen an' }, fr: { h_waiting: 'En file' } }, 'de');
    expect(t.h_waiting).toBe('Sie stehen an');
    expect(t.s_waiting).toBe(de.s_waiting);
    expect(de).toEqual(before);
    expect(withPageTexts(de, { fr: { h_waiting: 'En file' } }, 'de')).toBe(de);
    expect(withPageTexts(de, undefined, 'de')).toBe(de);
  });
});
