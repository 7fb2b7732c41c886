// The parts every visitor page shares: the organizer's accent colour and the top bar.
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import { LANGS, LANG_NAMES, type Lang } from '../../contracts/i18n';

const DEFAULT_ACCENT = '#2563eb';

/**
 * The organizer's accent colour when it is `#rrggbb`, else the default blue. The event config
 * validates it already; it is checked again here because the page's style is not escaped.
 */
export function accentOf(page: PageTemplate): string {
  return /^#[0-9a-fA-F]{6}$/.test(page.accentColor ?? '') ? page.accentColor! : DEFAULT_ACCENT;
}

/**
 * The top bar of a visitor page: the organizer's logo (an HTTPS URL, validated in the event
 * config; escaped) and the language switch, one `?lang=` link per language with the current one
 * marked `aria-current`. `switchLabel` is the switch's accessible name in `lang`.
 */
export function topBar(lang: Lang, page: PageTemplate, switchLabel: string) {
  return html`<header class="top">
    ${page.logoUrl ? html`<img src="${page.logoUrl}" alt="" />` : ''}
    <details>
      <summary aria-label="${switchLabel}">${LANG_NAMES[lang]}</summary>
      <ul>
        ${LANGS.map(
          (l) =>
            html`<li>
              <a href="?lang=${l}" hreflang="${l}" lang="${l}" ${l === lang ? raw('aria-current="true"') : ''}>${LANG_NAMES[l]}</a>
            </li>`,
        )}
      </ul>
    </details>
  </header>`;
}

/**
 * The `<style>` text of a page: the organizer's accent colour (`accentOf`: a validated `#rrggbb`)
 * as `--accent`, then the pages' shared style (an asset: `pageStyle`).
 */
export function accentStyle(accent: string, style: string): string {
  return `:root {--accent: ${accent};}${style}`;
}
