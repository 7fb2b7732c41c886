// The objects' SQL migrations are Workers Static Assets, not code (their text was 2.8 KiB gzip
// of the gateway's bundle, loaded by every cold isolate, and needed only by an object whose database
// is behind). scripts/page-assets.ts writes them from the migration lists (schema-sources.ts); an
// object reads its list through the ASSETS binding only when a migration is missing.
import { appliedThrough, migrate, type Migration } from './sql';
import type { SchemaRef } from './schemas';

/** Where the migration lists sit in the assets directory (under the gateway's own `/_wr/` prefix: never served as files). */
const SCHEMA_ASSET_DIR = '/_wr/schema';

/** The asset with the migrations of the tables prefixed `prefix`: a JSON array of `Migration`s in id order. */
export function schemaAssetPath(prefix: string): string {
  return `${SCHEMA_ASSET_DIR}/${prefix}.json`;
}

/**
 * Brings this object's database up to `schema.latest`. Up to date (every start but an object's
 * first, or the first after a deploy with a new migration): one SQLite read, no asset read.
 * Otherwise it reads the list from `assets` and applies the missing migrations (`migrate`: each in
 * its own transaction). Call inside `blockConcurrencyWhile`, so no request sees a half-built schema.
 *
 * @param assets the Worker's ASSETS binding (wrangler.toml `[assets]`)
 * @throws Error when the asset is missing, or ends at another migration than `schema.latest` (assets
 *   built from other sources than this code: rebuild them with scripts/page-assets.ts); nothing is applied
 * @throws SqlError when a migration fails (rolled back; the next start retries)
 */
export async function migrateFromAssets(storage: DurableObjectStorage, assets: Fetcher, schema: SchemaRef): Promise<void> {
  if (appliedThrough(storage, schema.prefix) >= schema.latest) return;
  const path = schemaAssetPath(schema.prefix);
  // The host is never looked up: the binding answers from the deployment's assets by path.
  const res = await assets.fetch(`https://assets.invalid${path}`);
  if (!res.ok) throw new Error(`schema asset ${path} answered ${res.status}: build the assets with scripts/page-assets.ts`);
  const migrations = (await res.json()) as Migration[];
  const last = migrations.at(-1)?.id ?? 0;
  if (last !== schema.latest)
    throw new Error(
      `schema asset ${path} ends at migration ${last}, this code expects ${schema.latest}: rebuild the assets with scripts/page-assets.ts`,
    );
  migrate(storage, schema.prefix, migrations);
}
