// Tests inside workerd (`npm run test:workers`): the gateway Worker from wrangler.toml plus the origin
// stub as an auxiliary Worker. Pure tests run in Node (vitest.unit.config.ts).
import { generateKeyPairSync } from 'node:crypto';
import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { bundleWorker } from './scripts/lib/bundle.ts';
import { generateDevSecrets, webhookSecret } from './scripts/lib/dev-secrets.ts';
import { writePageAssets } from './scripts/page-assets.ts';

const PROJECT = 'gateway';

// Fresh throw-away secrets for every run: nothing secret is stored in the repo.
const secrets = generateDevSecrets();
const paymentWebhookSecret = webhookSecret();
// A throw-away key pair for entry tokens signed with the origin's own keys: the stub publishes the
// public half at /.well-known/entry-jwks.json, the tests sign with the private half.
const entryKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const entryPublicJwk = { ...entryKey.publicKey.export({ format: 'jwk' }), kid: 'test-entry', alg: 'ES256' };
const entryPrivateJwk = { ...entryKey.privateKey.export({ format: 'jwk' }), kid: 'test-entry', alg: 'ES256' };

// Auxiliary Workers cannot load their own wrangler.toml in the pool: bundle the stub first.
bundleWorker('origin-stub/index.ts', '.build/origin-stub.js');
// The pages' words and scripts are static assets (wrangler.toml `[assets]`): the pool reads the
// directory but does not run wrangler's `[build] command`, so write them here.
await writePageAssets();

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        // The join limit per IP, lowered from wrangler.toml's 600 per 10 s so the rate-limit test reaches
        // it in a fraction of a window on any machine (test/edge/hostile.test.ts, TEST_JOIN_LIMIT).
        ratelimits: { IP_RATE_LIMITER: { namespace_id: '7102', simple: { limit: 40, period: 10 } } },
        // Release ticks never fire by themselves in tests: each test fires them with runDurableObjectAlarm.
        // The origin stub behind the gateway (wrangler.toml deploys without this binding).
        serviceBindings: { ORIGIN: 'origin-stub' },
        bindings: {
          ...secrets,
          PAYMENT_WEBHOOK_SECRET: paymentWebhookSecret,
          TEST_ENTRY_SIGNING_JWK: JSON.stringify(entryPrivateJwk),
          TOKEN_ISSUER: 'waiting-room-gateway',
          ORIGIN_URL: '',
          RELEASE_TICK_MS: '3600000',
        },
        workers: [
          {
            name: 'origin-stub',
            modules: true,
            scriptPath: '.build/origin-stub.js',
            compatibilityDate: '2026-11-01',
            // As origin-stub/wrangler.toml: a request whose client gave up leaves the simulated service.
            compatibilityFlags: ['enable_request_signal'],
            durableObjects: { SHOP: { className: 'Shop', useSQLite: true } },
            // No periodic health reports in tests: the controller sees only what a test posts.
            bindings: {
              HEALTH_REPORT_INTERVAL_MS: '0',
              TOKEN_ISSUER: 'waiting-room-gateway',
              BASE_LATENCY_MS: '0',
              CAPACITY_KNEE: '1000',
              ORIGIN_HMAC_SECRET: secrets.ORIGIN_HMAC_SECRET,
              PAYMENT_WEBHOOK_SECRET: paymentWebhookSecret,
              ENTRY_JWKS: JSON.stringify({ keys: [entryPublicJwk] }),
              AUTHORIZATION_WINDOW_MS: '600000',
              // Checkout jobs run only when a test asks (the stub's admin API), never by a timer.
              JOB_ALARMS: '0',
            },
            // The pool renames the Worker under test to `vitest-plugin-runner-<project name>`
            // (@cloudflare/vitest-plugin getRunnerName); the checkout tests fail loudly if that changes.
            serviceBindings: { GATEWAY: `vitest-plugin-runner-${PROJECT}` },
          },
        ],
      },
    }),
  ],
  test: {
    name: PROJECT,
    include: ['test/{edge,durable-objects,origin-stub}/**/*.test.ts'],
    // A hang guard, not a speed target (those live in bench/): the suite runs on a shared 2-core
    // machine where the 1,000-visitor queue tests took over a minute under load.
    testTimeout: 300_000,
    // Decision logs and other console output are kept for failing tests only (test/README.md, Output).
    silent: 'passed-only',
  },
});
