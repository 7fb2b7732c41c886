// `npm run bench:wakeups`: WaitingRoom wake-ups (alarm runs) per minute in each room state, with the
// production tick (RELEASE_TICK_MS 1000) under Miniflare, no traffic during the window. Target:
// none while nothing can change; the selling room is the control.
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { bundleWorker } from '../scripts/lib/bundle.ts';
import { BENCH_ASSETS } from './harness.ts';
import { writePageAssets } from '../scripts/page-assets.ts';
import { generateDevSecrets } from '../scripts/lib/dev-secrets.ts';

const WINDOW_S = Number(process.env.BENCH_WAKE_SECONDS) || 60;

/** The states measured: what each room is set up with before the window starts. */
const STATES: { name: string; event: Record<string, unknown>; joins: number; after?: 'pause' | 'close' }[] = [
  { name: 'selling (control): visitors waiting, slots free', event: { releaseRatePerMinute: 6, minReleaseRatePerMinute: 6 }, joins: 20 },
  { name: 'paused with visitors waiting', event: {}, joins: 20, after: 'pause' },
  { name: 'closed with visitors waiting', event: {}, joins: 20, after: 'close' },
  { name: 'before its sale start (1 h), visitors in line', event: { saleStartsAt: 'in1h' }, joins: 20 },
  { name: 'everyone released, nobody came back', event: {}, joins: 20 },
  {
    name: 'slots full of visitors who never came back (idle timeout 30 s)',
    event: { maxActiveVisitors: 2, idleTimeoutSeconds: 30 },
    joins: 20,
  },
  { name: 'nobody ever joined', event: {}, joins: 0 },
];

async function main(): Promise<void> {
  bundleWorker('bench/wakeups-worker.ts', '.build/wakeups-worker.js');
  await writePageAssets();
  const secrets = generateDevSecrets();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      port: 0,
      handleStructuredLogs: () => {},
      workers: [
        {
          name: 'wakeups',
          modules: true,
          scriptPath: '.build/wakeups-worker.js',
          compatibilityDate: '2026-11-01',
          bindings: { ...secrets, TOKEN_ISSUER: 'waiting-room-gateway', ORIGIN_URL: '', RELEASE_TICK_MS: '1000' },
          durableObjects: {
            WAITING_ROOM: { className: 'CountingRoom', useSQLite: true },
            INVENTORY: { className: 'Inventory', useSQLite: true },
            QUEUE_SHARD: { className: 'QueueShard', useSQLite: true },
            DIRECTORY: { className: 'EventDirectory', useSQLite: true },
          },
          serviceBindings: { ORIGIN: async () => new Response('origin') },
          ratelimits: { IP_RATE_LIMITER: { namespace_id: '7102', simple: { limit: 1_000_000, period: 10 } } },
          assets: BENCH_ASSETS,
        },
      ],
    }),
  );
  try {
    const base = (await mf.ready).toString().replace(/\/$/, '');
    const admin = { authorization: `Bearer ${secrets.ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const events = STATES.map((_, i) => `wake-${i}-${crypto.randomUUID().slice(0, 6)}`);
    for (const [i, s] of STATES.entries()) {
      const { saleStartsAt, ...rest } = s.event;
      const body = {
        releaseRatePerMinute: 600,
        minReleaseRatePerMinute: 600,
        maxActiveVisitors: 1000,
        seats: 10,
        ...rest,
        ...(saleStartsAt ? { saleStartsAt: new Date(Date.now() + 3_600_000).toISOString() } : {}),
      };
      const res = await fetch(`${base}/_wr/admin/events/${events[i]}`, { method: 'PUT', headers: admin, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`create ${events[i]}: ${res.status} ${await res.text()}`);
      for (let k = 0; k < s.joins; k++) await (await fetch(`${base}/_wr/events/${events[i]}/join`, { method: 'POST' })).arrayBuffer();
      if (s.after)
        await (await fetch(`${base}/_wr/admin/events/${events[i]}/${s.after}`, { method: 'POST', headers: admin })).arrayBuffer();
    }
    // Let the joins' wake-ups and the first releases settle, then count over the window.
    await new Promise((r) => setTimeout(r, 5_000));
    const count = async (event: string) => (await (await fetch(`${base}/__bench/alarms?event=${event}`)).json()) as number;
    const before = await Promise.all(events.map(count));
    await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
    const after = await Promise.all(events.map(count));
    console.log(`WaitingRoom wake-ups (alarm runs) per minute, ${WINDOW_S} s window, tick 1,000 ms, no traffic:\n`);
    console.log('| room state | wake-ups/min |\n|---|---|');
    for (const [i, s] of STATES.entries()) console.log(`| ${s.name} | ${(((after[i]! - before[i]!) * 60) / WINDOW_S).toFixed(1)} |`);
  } finally {
    await mf.dispose();
  }
}

await main();
