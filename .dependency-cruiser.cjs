// Import rules checked by `npm test` (scripts/test.ts runs dependency-cruiser over the Worker sources).
// The arrows run one way: src/routes -> src/middleware -> src/lib -> contracts/, and
// durable-objects/ -> contracts/. contracts/ imports no other folder of the project. README.md,
// "Layout", explains each rule. The swc parser reads the sources as written, so type-only imports
// count too (typescript 7 has no JS API for dependency-cruiser yet).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: split the shared part into a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contracts-import-nothing',
      severity: 'error',
      comment: 'contracts/ is what both sides share; it may import only itself and packages.',
      from: { path: '^contracts/' },
      to: { path: '^(src|durable-objects|origin-stub|test|scripts|bench)/' },
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
      to: { path: '^(src|durable-objects|contracts|origin-stub|example-origin|test|scripts|bench)/' },
    },
    {
      name: 'example-origin-uses-the-sdk',
      severity: 'error',
      comment: 'example-origin/ is what a user copies: it may use origin-sdk/ and packages, nothing else of the repository.',
      from: { path: '^example-origin/' },
      to: { path: '^(src|durable-objects|contracts|origin-stub|test|bench)/' },
    },
    {
      name: 'gateway-hono-one-router',
      severity: 'error',
      comment:
        "The gateway's Hono class is src/lib/hono.ts (the RegExpRouter alone): a value import of 'hono' itself brings back " +
        'the SmartRouter and the TrieRouter, 1.2 KiB gzip of the bundle budget (#16). Type imports from it are fine.',
      from: { path: '^(src|durable-objects|contracts)/' },
      to: { path: '^node_modules/hono/dist/(cjs/)?index[.]js$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'migrations-are-assets',
      severity: 'error',
      comment:
        "The objects' SQL migrations are static assets (durable-objects/shared/schema-assets.ts): the Worker reads them through " +
        'ASSETS and imports none of the lists (2.8 KiB gzip of the bundle budget, #16). Only the asset sources may import them.',
      from: { path: '^(src|durable-objects|contracts)/', pathNot: '^durable-objects/shared/schema-sources[.]ts$' },
      to: { path: '^durable-objects/.*schema(-sources)?[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    exclude: { path: 'worker-configuration[.]d[.]ts$' },
  },
};
