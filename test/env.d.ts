// Test-only typing of the bindings the pool provides.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('../src/index');
    durableNamespaces: 'WaitingRoom' | 'Inventory';
  }
  interface Env {
    /** The origin stub's payment webhook secret, generated per run by vitest.config.ts (tests sign webhooks with it). */
    PAYMENT_WEBHOOK_SECRET: string;
    /** Private JWK (JSON) of the origin stub's entry-token key, generated per run by vitest.config.ts (the stub publishes the public half). */
    TEST_ENTRY_SIGNING_JWK: string;
    /** The origin stub, bound by vitest.config.ts (wrangler.toml deploys without it). */
    ORIGIN: Fetcher;
  }
}

/** A file's text, imported with Vite's `?raw` suffix (the docs reference test reads pages this way). */
declare module '*?raw' {
  const text: string;
  export default text;
}
