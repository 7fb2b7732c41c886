// The languages visitor pages speak (gateway pages and the origin stub's sale page), and how a request picks one.

/** Languages of the waiting page, the draw page and the stub's sale page (BCP 47 tags). */
export const LANGS = ['en', 'zh-Hant', 'zh-Hans', 'ja', 'ko', 'es', 'de', 'fr', 'it', 'pt-BR', 'th', 'vi', 'id'] as const;

/** A language the visitor pages speak. */
export type Lang = (typeof LANGS)[number];

/** Each language's own name, for the language switch (a visitor looks for their language in it). */
export const LANG_NAMES: Record<Lang, string> = {
  en: 'English',
  'zh-Hant': '繁體中文',
  'zh-Hans': '简体中文',
  ja: '日本語',
  ko: '한국어',
  es: 'Español',
  de: 'Deutsch',
  fr: 'Français',
  it: 'Italiano',
  'pt-BR': 'Português (Brasil)',
  th: 'ไทย',
  vi: 'Tiếng Việt',
  id: 'Bahasa Indonesia',
};

/** Languages picked by their primary subtag alone, whatever the region or script (`de-AT`, `fr-CA`). */
const BY_PRIMARY: readonly Lang[] = ['en', 'ja', 'ko', 'es', 'de', 'fr', 'it', 'th', 'vi', 'id'];

/**
 * Cookie that remembers a language chosen with the switch. Not a gateway credential (no `__wr_`
 * prefix), so it also reaches the origin and the sale page speaks the same language.
 */
export const LANG_COOKIE = 'wr_lang';

/** How long a chosen language is remembered, seconds (one year). */
const LANG_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/**
 * The language a BCP 47 tag (RFC 5646) names, or null: our own tags exactly, else by primary
 * subtag and script or region, as RFC 4647 lookup falls back from `pt-PT` to `pt` (our only
 * Portuguese is Brazil's) or from `de-CH` to `de`.
 */
export function langOf(tag: string): Lang | null {
  const t = tag.trim().toLowerCase();
  const exact = LANGS.find((l) => l.toLowerCase() === t);
  if (exact) return exact;
  const [primary, ...rest] = t.split('-');
  if (primary === 'zh') {
    // Script first (zh-Hant-CN is Traditional), then region: Taiwan, Hong Kong and Macao write
    // Traditional; bare `zh`, China and Singapore Simplified (CLDR likely subtags: zh -> zh-Hans-CN).
    if (rest.includes('hant')) return 'zh-Hant';
    if (rest.includes('hans')) return 'zh-Hans';
    return rest.some((r) => r === 'tw' || r === 'hk' || r === 'mo') ? 'zh-Hant' : 'zh-Hans';
  }
  if (primary === 'pt') return 'pt-BR';
  // `in` is the deprecated code for Indonesian (IANA registry: preferred value `id`); old Android and Java still send it.
  if (primary === 'in') return 'id';
  return BY_PRIMARY.find((l) => l === primary) ?? null;
}

/**
 * Picks the page language from an Accept-Language header (RFC 9110 section 12.5.4): the first tag
 * by quality that we speak; English when none is.
 */
export function pickLang(acceptLanguage: string | undefined): Lang {
  const tags = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag ?? '', q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((t) => t.tag && t.q > 0)
    // Stable sort: equal qualities keep the browser's order.
    .sort((a, b) => b.q - a.q);
  for (const { tag } of tags) {
    const lang = langOf(tag);
    if (lang) return lang;
  }
  return 'en';
}

/**
 * The language of one request: `?lang=` (the switch's links), else the remembered cookie, else
 * Accept-Language. `chosen` is the query's language when it names one we speak, so the caller
 * can remember it.
 *
 * @param req.query the `lang` query parameter, if any
 * @param req.cookie the Cookie header, if any
 * @param req.acceptLanguage the Accept-Language header, if any
 */
export function requestLang(req: { query?: string | undefined; cookie?: string | undefined; acceptLanguage?: string | undefined }): {
  lang: Lang;
  chosen: Lang | null;
} {
  const chosen = req.query ? langOf(req.query) : null;
  if (chosen) return { lang: chosen, chosen };
  const remembered = (req.cookie ?? '')
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${LANG_COOKIE}=`))
    ?.slice(LANG_COOKIE.length + 1);
  // Read as set (`langCookie` writes a bare tag): no percent-decoding, which threw on `%E0%A4`.
  const fromCookie = remembered ? langOf(remembered) : null;
  return { lang: fromCookie ?? pickLang(req.acceptLanguage), chosen: null };
}

/** The Set-Cookie value that remembers `lang` for the whole site (readable by the origin's pages too). */
export function langCookie(lang: Lang, secure: boolean): string {
  return `${LANG_COOKIE}=${lang}; Path=/; Max-Age=${LANG_COOKIE_MAX_AGE_S}; SameSite=Lax${secure ? '; Secure' : ''}`;
}
