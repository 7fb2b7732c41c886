// The parts every visitor page shares: the organizer's accent colour and the top bar.
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import { LANGS, LANG_NAMES, type Lang } from '../../contracts/i18n';

const DEFAULT_ACCENT = '#2563eb';

/**
 * hono's `html` (values escaped alike) with each line break of the template and the indentation
 * after it read as one space, which is how HTML reads them anyway. The waiting page must weigh
 * under 15 KB with its script in every language, and its indentation alone was about 0.8 KB: more
 * than a language written in 3-byte characters, such as Thai, has to spare.
 */
export function tightHtml(strings: TemplateStringsArray, ...values: unknown[]): ReturnType<typeof html> {
  const tight = strings.map((s) => s.replace(/\n\s*/g, ' '));
  return html(Object.assign(tight, { raw: tight }), ...values);
}

/**
 * The organizer's accent colour when it is `#rrggbb`, else the default blue. The event config
 * validates it already; it is checked again here because the page's style is not escaped.
 */
export function accentOf(page: PageTemplate): string {
  return /^#[0-9a-fA-F]{6}$/.test(page.accentColor ?? '') ? page.accentColor! : DEFAULT_ACCENT;
}

/**
 * The top bar of a visitor page: the organizer's logo (an HTTPS URL, validated in the event
 * config; escaped) and the language switch (`languageSwitch`). `switchLabel` is the switch's
 * accessible name in `lang`.
 */
export function topBar(lang: Lang, page: PageTemplate, switchLabel: string) {
  return tightHtml`<header class="top">
    ${page.logoUrl ? html`<img src="${page.logoUrl}" alt="" />` : ''}
    ${languageSwitch(lang, switchLabel)}
  </header>`;
}

/**
 * The language switch: a `<details>` menu, one `?lang=` link per language with the current one
 * marked `aria-current`. `switchLabel` is its accessible name in `lang`; `marker`, when given,
 * is the value of its `data-wr` attribute (an organizer's template styles it by that).
 */
export function languageSwitch(lang: Lang, switchLabel: string, marker?: string) {
  // Built as one string: tags, attributes and names are our own constants (no character to escape).
  const links = LANGS.map(
    (l) => `<li><a href="?lang=${l}" hreflang="${l}" lang="${l}"${l === lang ? ' aria-current="true"' : ''}>${LANG_NAMES[l]}</a></li>`,
  ).join('');
  return tightHtml`<details${marker ? html` data-wr="${marker}"` : ''}>
    <summary aria-label="${switchLabel}">${LANG_NAMES[lang]}</summary>
    <ul>
      ${raw(links)}
    </ul>
  </details>`;
}

/**
 * The `<style>` text of a page: the organizer's accent colour (`accentOf`: a validated `#rrggbb`)
 * as `--accent`, then the pages' shared style (an asset: `pageStyle`).
 */
export function accentStyle(accent: string, style: string): string {
  return `:root {--accent: ${accent};}${style}`;
}
