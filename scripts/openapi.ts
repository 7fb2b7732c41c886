// Writes docs/reference/openapi.json from src/openapi/document.ts (the zod schemas the routes
// validate with). test/edge/openapi.test.ts fails until the committed file matches: run
// `node_modules/.bin/node scripts/openapi.ts` after changing a route, a body schema or an error code.
import { buildSync } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib/dev-server.ts';

/** The committed document. */
export const OPENAPI_FILE = join(ROOT, 'docs', 'reference', 'openapi.json');

const built = buildSync({
  entryPoints: [join(ROOT, 'src/pages/asset-sources.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  target: 'es2024',
  logLevel: 'warning',
});
const sources = (await import(`data:text/javascript;base64,${Buffer.from(built.outputFiles[0]!.text).toString('base64')}`)) as {
  openApiText(): string;
};
writeFileSync(OPENAPI_FILE, sources.openApiText());
console.log(`wrote ${OPENAPI_FILE}`);
