// Import rules checked by `npm test` (scripts/test.ts runs dependency-cruiser over every source
// folder). Each layer imports only the layers on its right, and packages:
//
//   src/ (edge Worker), durable-objects/  ->  contracts/  ->  origin-sdk/
//   origin-stub/ (another Worker)         ->  contracts/, durable-objects/shared/, origin-sdk/
//   example-origin/ (what a user copies)  ->  origin-sdk/
//   origin-sdk/ (a package of its own)    ->  nothing of the repository
//
// Inside src/: routes -> middleware -> lib, and only src/index.ts imports durable-objects/
// (wrangler's main module exports the classes). The edge and the objects reach the origin SDK
// only through contracts/, so the protocol an origin sees has one way in. The swc parser reads the
// sources as written, so type-only imports count too (typescript 7 has no JS API for
// dependency-cruiser yet).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'A relative import that resolves to no file: the rules over paths cannot see where it goes.',
      from: {},
      to: { couldNotResolve: true, path: '^[.]' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: split the shared part into a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contracts-import-only-the-sdk',
      severity: 'error',
      comment: 'contracts/ is what the edge and the objects share: it may import itself, origin-sdk/src and packages.',
      from: { path: '^contracts/' },
      to: { path: '^(src|durable-objects|origin-stub|example-origin|test|scripts|bench)/|^origin-sdk/(?!src/)' },
    },
    {
      name: 'sdk-through-contracts',
      severity: 'error',
      comment:
        'The edge and the objects reach the origin SDK through contracts/ (names.ts, hmac.ts, entry.ts), so what an origin sees has one way in.',
      from: { path: '^(src|durable-objects)/' },
      to: { path: '^origin-sdk/' },
    },
    {
      name: 'objects-not-to-edge',
      severity: 'error',
      comment: 'Durable Objects import contracts/, never the edge Worker in src/.',
      from: { path: '^durable-objects/' },
      to: { path: '^src/' },
    },
    {
      name: 'edge-not-to-objects',
      severity: 'error',
      comment:
        'The edge reads object answers through contracts/. Only src/index.ts may import durable-objects/: ' +
        "wrangler's main module must export the Durable Object classes.",
      from: { path: '^src/', pathNot: '^src/index[.]ts$' },
      to: { path: '^durable-objects/' },
    },
    {
      name: 'lib-not-to-upper-layers',
      severity: 'error',
      comment: 'src/lib/ is Context-free: it imports neither routes, middleware, pages nor the app.',
      from: { path: '^src/lib/' },
      to: { path: '^src/(routes|middleware|pages)/|^src/(app|index)[.]ts$' },
    },
    {
      name: 'origin-stub-not-to-gateway',
      severity: 'error',
      comment:
        'The origin stub is another Worker: it shares contracts/ (and the SQL helper in durable-objects/shared/), never the gateway code.',
      from: { path: '^origin-stub/' },
      to: { path: '^src/|^durable-objects/(?!shared/)' },
    },
    {
      name: 'origin-sdk-standalone',
      severity: 'error',
      comment:
        'origin-sdk/ is a package of its own (installed by real origins): it imports only itself and packages, never the repository.',
      from: { path: '^origin-sdk/' },
      to: { pathNot: '^(origin-sdk|node_modules)/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'example-origin-uses-the-sdk',
      severity: 'error',
      comment: 'example-origin/ is what a user copies: it may use origin-sdk/ and packages, nothing else of the repository.',
      from: { path: '^example-origin/' },
      to: { path: '^(src|durable-objects|contracts|origin-stub|test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    exclude: { path: 'worker-configuration[.]d[.]ts$|^origin-sdk/dist/' },
  },
};
