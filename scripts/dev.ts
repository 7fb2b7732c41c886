// `npm start`: the gateway, both Durable Objects and the origin stub on localhost, with the demo event.
import { DEMO_EVENT, PortInUseError, parentPid, putEvent, startDevServer, type DevServer } from './lib/dev-server.ts';

/** How often this process checks that whoever started it (npm, a shell) is still there, ms. */
const PARENT_CHECK_MS = 500;

// PORT picks another port than 8787 (e.g. to run two copies side by side); ORIGIN_URL sends admitted
// visitors to an origin of your own (e.g. `npm run example-origin` on :8080) instead of the stub;
// PERSIST_TO another storage folder than .wrangler/state (the tests use a throw-away one).
let server: DevServer;
try {
  server = await startDevServer({
    port: Number(process.env.PORT) || 8787,
    ...(process.env.PERSIST_TO ? { persistTo: process.env.PERSIST_TO } : {}),
    ...(process.env.ORIGIN_URL ? { vars: { ORIGIN_URL: process.env.ORIGIN_URL } } : {}),
  });
} catch (err) {
  if (!(err instanceof PortInUseError)) throw err;
  console.error(`npm start: ${err.message}`);
  process.exit(1);
}
await putEvent(server, 'demo', DEMO_EVENT);
console.log(`
  Waiting room gateway is up.
    Sale page (queue):  ${server.url}/events/demo/
    Dashboard:          ${server.url}/_wr/admin/  (sign in with ADMIN_TOKEN from .dev.vars)
    Console:            ${server.url}/_wr/admin/console  (create, schedule, history, report)
    Organizer API:      curl -H "Authorization: Bearer $(grep ^ADMIN_TOKEN= .dev.vars | cut -d= -f2)" ${server.url}/_wr/admin/events/demo
    JWKS:               ${server.url}/.well-known/jwks.json
  Demo event "demo": ${DEMO_EVENT.seats} seats, ${DEMO_EVENT.policy.toUpperCase()}, up to ${DEMO_EVENT.releaseRatePerMinute} visitors/min.
  Ctrl-C stops.
`);
let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  void server.stop().then(() => process.exit(0));
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, shutdown);
server.process.on('exit', (code) => process.exit(code ?? 1));
// `kill -9` of npm itself runs no handler and leaves this process running: npm runs it through
// `sh -c`, which outlives npm. So this process watches who started it: its parent and, under npm
// (npm_lifecycle_event is set), its parent's parent. A process whose parent dies is adopted by
// another, so a changed parent pid means the starter is gone: stop the server then. (If this
// process is the one killed, the process guard stops the server: scripts/lib/dev-server.ts.)
const parent = process.ppid;
const grandparent = process.env.npm_lifecycle_event ? parentPid(parent) : null;
setInterval(() => {
  if (process.ppid !== parent || (grandparent !== null && parentPid(parent) !== grandparent)) shutdown();
}, PARENT_CHECK_MS).unref();
