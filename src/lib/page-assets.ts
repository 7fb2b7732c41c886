// The heavy texts of the gateway's pages (their words in every language, their inline scripts, the
// dashboard) live in Workers Static Assets, not in the Worker's bundle: every cold isolate of a
// flash crowd loads the bundle, and only a page it renders needs these (docs/explanation/scaling.md).
// scripts/page-assets.ts writes them from src/pages/asset-sources.ts; the Worker reads each one
// once per isolate through its ASSETS binding (wrangler.toml `[assets]`, run_worker_first: none of
// them is served to browsers as a file).
import type { Lang } from '../../contracts/i18n';

/** Where the page assets sit in the assets directory (under the gateway's own `/_wr/` prefix). */
const PAGE_ASSET_DIR = '/_wr/page';

/** The pages whose words are an asset per language. */
export type MessageFamily = 'waiting' | 'sign-in' | 'check';

/** The asset with `family`'s words in `lang`: a JSON object of strings, keyed as the English table. */
export function messagesPath(family: MessageFamily, lang: Lang): string {
  return `${PAGE_ASSET_DIR}/${family}.${lang}.json`;
}

/** The inline scripts (each page embeds its script's exact text and allows it by its CSP hash). */
export const SCRIPT_PATHS = {
  waiting: `${PAGE_ASSET_DIR}/waiting.js`,
  check: `${PAGE_ASSET_DIR}/check.js`,
  dashboard: `${PAGE_ASSET_DIR}/dashboard.js`,
  dashboardAccess: `${PAGE_ASSET_DIR}/dashboard-access.js`,
  console: `${PAGE_ASSET_DIR}/console.js`,
  draw: `${PAGE_ASSET_DIR}/draw.js`,
} as const;

/** The style the waiting, check and sign-in pages share (each sets `--accent` in front of it). */
export const STYLE_PATH = `${PAGE_ASSET_DIR}/page.css`;
/** The little style of an organizer's template page (the organizer's own style does the rest). */
export const TEMPLATE_STYLE_PATH = `${PAGE_ASSET_DIR}/template.css`;

/** The organizer dashboard, a static page (its script included). */
export const DASHBOARD_PATH = `${PAGE_ASSET_DIR}/dashboard.html`;

/** The OpenAPI document (src/openapi/document.ts), an asset too: served as is at OPENAPI_PATH. */
export const OPENAPI_ASSET_PATH = `${PAGE_ASSET_DIR}/openapi.json`;
/** Where the gateway serves its OpenAPI document. */
export const OPENAPI_PATH = '/_wr/openapi.json';
/** The organizer console (events, scheduled changes, history), a static page (its script included). */
export const CONSOLE_PATH = `${PAGE_ASSET_DIR}/console.html`;

/** Reads page assets through one ASSETS binding. */
export interface AssetReader {
  /**
   * The asset's text.
   * @throws Error when the asset is missing (a build without scripts/page-assets.ts: the request fails with a 500)
   */
  text(path: string): Promise<string>;
  /** The asset parsed as JSON (the same object on every call of the isolate: never mutate it). */
  json<T>(path: string): Promise<T>;
}

/**
 * This isolate's copy of the page assets (one per app, like the room table: tests get their own).
 * An asset never changes within a deployment, so each is read once; a failed read is forgotten,
 * so the next request tries again.
 */
export class PageAssets {
  readonly #cache = new Map<string, Promise<unknown>>();

  /** A reader over `assets` (the Worker's ASSETS binding) that shares this isolate's cache. */
  reader(assets: Fetcher): AssetReader {
    return {
      text: (path) => this.#once(`text:${path}`, () => read(assets, path)) as Promise<string>,
      json: <T>(path: string) => this.#once(`json:${path}`, async () => JSON.parse(await read(assets, path)) as T) as Promise<T>,
    };
  }

  #once(key: string, load: () => Promise<unknown>): Promise<unknown> {
    let value = this.#cache.get(key);
    if (!value) {
      value = load();
      value.catch(() => this.#cache.delete(key));
      this.#cache.set(key, value);
    }
    return value;
  }
}

async function read(assets: Fetcher, path: string): Promise<string> {
  // The host is never looked up: the binding answers from the deployment's assets by path.
  const res = await assets.fetch(`https://assets.invalid${path}`);
  if (!res.ok) throw new Error(`page asset ${path} answered ${res.status}: build the assets with scripts/page-assets.ts`);
  return res.text();
}
