// `npm run example-origin`: the example ticketing site on its own port, for the gateway's ORIGIN_URL.
// Settings from the environment: GATEWAY_URL, ORIGIN_HMAC_SECRET (else read from ../.dev.vars),
// EVENT_ID (default demo), PORT (default 8080), TOKEN_ISSUER, SLOW_MS, REQUIRE_GATEWAY (1: refuse
// requests without the gateway's origin-pull key).
import { existsSync, readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { exampleOrigin } from './app.ts';

/** ORIGIN_HMAC_SECRET from the environment, else from the gateway's local .dev.vars (npm start writes it). */
function secret(): string {
  if (process.env.ORIGIN_HMAC_SECRET) return process.env.ORIGIN_HMAC_SECRET;
  const vars = new URL('../.dev.vars', import.meta.url);
  const line = existsSync(vars)
    ? readFileSync(vars, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('ORIGIN_HMAC_SECRET='))
    : undefined;
  if (!line) throw new Error('ORIGIN_HMAC_SECRET must be set (or run `npm start` once so .dev.vars has it)');
  return line.slice('ORIGIN_HMAC_SECRET='.length).trim();
}

const port = Number(process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error('PORT must be a TCP port');
const gatewayUrl = process.env.GATEWAY_URL ?? 'http://127.0.0.1:8787';
const { app, health } = exampleOrigin({
  gatewayUrl,
  secret: secret(),
  eventId: process.env.EVENT_ID ?? 'demo',
  issuer: process.env.TOKEN_ISSUER,
  slowMs: Number(process.env.SLOW_MS ?? 0),
  requireGateway: process.env.REQUIRE_GATEWAY === '1',
});
health.start();
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) =>
  console.log(`Example origin on http://127.0.0.1:${info.port}, reporting health to ${gatewayUrl} for event ${health.eventId}`),
);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    health.stop();
    server.close(() => process.exit(0));
  });
