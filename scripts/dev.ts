// `npm start`: the gateway, both Durable Objects and the origin stub on localhost, with the demo event.
import { DEMO_EVENT, putEvent, startDevServer } from './lib/dev-server.ts';

// PORT picks another port than 8787 (e.g. to run two copies side by side); ORIGIN_URL sends admitted
// visitors to an origin of your own (e.g. `npm run example-origin` on :8080) instead of the stub.
const server = await startDevServer({
  port: Number(process.env.PORT) || 8787,
  ...(process.env.ORIGIN_URL ? { vars: { ORIGIN_URL: process.env.ORIGIN_URL } } : {}),
});
await putEvent(server, 'demo', DEMO_EVENT);
console.log(`
  Waiting room gateway is up.
    Sale page (queue):  ${server.url}/events/demo/
    Dashboard:          ${server.url}/_wr/admin/  (sign in with ADMIN_TOKEN from .dev.vars)
    Organizer API:      curl -H "Authorization: Bearer $(grep ^ADMIN_TOKEN= .dev.vars | cut -d= -f2)" ${server.url}/_wr/admin/events/demo
    JWKS:               ${server.url}/.well-known/jwks.json
  Demo event "demo": ${DEMO_EVENT.seats} seats, ${DEMO_EVENT.policy.toUpperCase()}, up to ${DEMO_EVENT.releaseRatePerMinute} visitors/min.
  Ctrl-C stops.
`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.stop().then(() => process.exit(0)));
}
server.process.on('exit', (code) => process.exit(code ?? 1));
