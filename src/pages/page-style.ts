// The gateway pages' shared style and a template page's own, assets the Worker reads (src/lib/page-assets.ts), not part of its
// bundle; each page sets `--accent` (the organizer's colour) in front of it (page-top.ts accentStyle).

/**
 * The page's style, compact (it is sent with every waiting page). Short lines wrap evenly, so no
 * lone character ends up on a line of its own (順 / 位 split over two lines); Japanese
 * breaks between phrases, not inside words.
 */
export const PAGE_STYLE = `
:root {color-scheme: light dark; --line: color-mix(in srgb, CanvasText 14%, transparent); font-family: system-ui, sans-serif; line-height: 1.45;}
body {margin: 0; background: Canvas; color: CanvasText;}
.top {display: flex; justify-content: space-between; align-items: center; gap: 1rem; max-width: 34rem; margin: 0 auto; padding: 0.75rem 1.25rem;}
.top img {max-height: 2.5rem; max-width: 50%;}
details {position: relative; margin-left: auto;}
summary {cursor: pointer; padding: 0.4rem 0.7rem; border: 1px solid var(--line); border-radius: 2rem; font-size: 0.9rem;}
details ul {position: absolute; right: 0; z-index: 1; margin: 0.3rem 0 0; padding: 0.3rem; list-style: none; background: Canvas; border: 1px solid var(--line); border-radius: 0.6rem; min-width: 9rem;}
details a {display: block; padding: 0.45rem 0.7rem; color: inherit; text-decoration: none; border-radius: 0.4rem;}
details a[aria-current] {font-weight: 700; background: color-mix(in srgb, var(--accent) 15%, transparent);}
main {max-width: 34rem; margin: 0 auto; padding: 0.5rem 1.25rem 2.5rem; text-align: center;}
p, h1 {text-wrap: balance; overflow-wrap: anywhere;}
:lang(ja) {word-break: auto-phrase;}
:lang(ko) {word-break: keep-all;}
h1 {font-size: 1.6rem; margin: 0.75rem 0 0.4rem; text-wrap: balance;}
.muted {opacity: 0.78;}
.warn {font-weight: 650;}
.banner {background: #fef3c7; color: #78350f; border-radius: 0.5rem; padding: 0.5rem;}
ol {display: flex; gap: 0.25rem; padding: 0; margin: 1rem 0 0; list-style: none; font-size: 0.85rem;}
ol li {flex: 1; padding-top: 0.5rem; border-top: 0.3rem solid var(--line); opacity: 0.7;}
ol li.done {border-color: var(--accent);}
ol li.now {border-color: var(--accent); font-weight: 700; opacity: 1;}
.card {border: 1px solid var(--line); border-radius: 1rem; padding: 1rem 1.25rem; margin: 1.25rem 0;}
.card:not(:has(> :not([hidden]))) {display: none;}
.card p {margin: 0.35rem 0;}
.big {font-size: 3.2rem; font-weight: 750; line-height: 1.1; font-variant-numeric: tabular-nums; color: var(--accent);}
.bar {height: 0.5rem; background: var(--line); border-radius: 1rem; overflow: hidden; margin: 0.75rem 0;}
.bar > div {height: 100%; width: 0; background: var(--accent); transition: width 0.6s;}
.note {font-size: 0.9rem; border-top: 1px solid var(--line); padding-top: 1rem;}
[hidden] {display: none !important;}`;

/**
 * The little style a template page gets from us: hidden stays hidden, and the progress bar, the
 * steps and the language menu have a shape. Each rule is in `:where()` (no weight), so any rule
 * of the organizer's own style wins.
 */
export const TEMPLATE_STYLE = [
  '[hidden] {display: none !important;}',
  ':where(.wr-bar) {display: block; height: 0.5rem; background: color-mix(in srgb, currentColor 15%, transparent); border-radius: 1rem; overflow: hidden;}',
  ':where(.wr-bar > span) {display: block; height: 100%; width: 0; background: var(--accent); transition: width 0.6s;}',
  ':where([data-wr=steps]) {display: flex; gap: 0.25rem; padding: 0; list-style: none;}',
  ':where([data-wr=steps] li) {flex: 1; padding-top: 0.4rem; border-top: 0.3rem solid color-mix(in srgb, currentColor 15%, transparent);}',
  ':where([data-wr=steps] li.done, [data-wr=steps] li.now) {border-color: var(--accent);}',
  ':where([data-wr=steps] li.now) {font-weight: 700;}',
  ':where([data-wr=languageSwitch]) {position: relative; display: inline-block;}',
  ':where([data-wr=languageSwitch] summary) {cursor: pointer;}',
  ':where([data-wr=languageSwitch] ul) {position: absolute; right: 0; z-index: 1; margin: 0.3rem 0 0; padding: 0.3rem; list-style: none; background: Canvas; color: CanvasText; border: 1px solid; border-radius: 0.5rem; min-width: 9rem;}',
  ':where([data-wr=languageSwitch] a) {display: block; padding: 0.4rem 0.6rem; color: inherit;}',
].join('');
