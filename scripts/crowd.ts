// `npm run crowd -- --visitors 2000`: simulated visitors, each with its own cookie jar, through the
// gateway's real HTTP path; prints admission rate, holds, sales and the inventory's consistency check.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CookieJar } from 'tough-cookie';
import { seatIdsFor } from '../durable-objects/inventory/hold-policy.ts';
import { ROOT, freePort, putEvent, startDevServer, type DevServer } from './lib/dev-server.ts';
import { parseDevVars } from './lib/dev-secrets.ts';
import { signOriginRequest } from '../origin-sdk/src/index.ts';

const { values: opts } = parseArgs({
  options: {
    visitors: { type: 'string', default: '500' },
    url: { type: 'string' },
    seats: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '1200' },
    'min-rate': { type: 'string' },
    'max-active': { type: 'string', default: '200' },
    'max-seconds': { type: 'string', default: '600' },
    concurrency: { type: 'string', default: '48' },
    seed: { type: 'string', default: '1' },
    'slow-origin-after': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(`npm run crowd -- [options]
  Creates a fresh event (crowd-<time>) on the gateway and sends simulated visitors through it.
  --visitors N      visitors (500)                 --seats N        seats of the event (1000)
  --rate N          max release rate per minute (1200)
  --min-rate N      min release rate per minute (rate / 4)
  --max-active N    max active visitors (200)      --max-seconds N  stop after this long (600)
  --concurrency N   requests in flight at most (48) --seed N         PRNG seed (1)
  --url URL         gateway (http://127.0.0.1:8787; started with temporary storage if none answers)
  --slow-origin-after S  after S seconds, tell the origin stub to answer in ~900 ms (watch the rate fall)`);
  process.exit(0);
}
const VISITORS = Number(opts.visitors);
const RATE = Number(opts.rate);
const MAX_MS = Number(opts['max-seconds']) * 1000;
const HOT_SEATS = 30; // overlapping on purpose: many visitors want the same front-row seats

/** Deterministic PRNG (mulberry32), so a run can be repeated with --seed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(Number(opts.seed));

/** Bounds the requests in flight, so the crowd does not open thousands of sockets at once. */
class Gate {
  private active = 0;
  private waiting: (() => void)[] = [];
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
const gate = new Gate(Number(opts.concurrency));

const counts = {
  joined: 0,
  admitted: 0,
  holdsGranted: 0,
  holdsRefused: 0,
  holdErrors: 0,
  paid: 0,
  declined: 0,
  checkoutFailed: 0,
  processing: 0,
  abandoned: 0,
  httpErrors: 0,
  rateLimited: 0,
};
const admittedAt: number[] = [];
const slowOriginAt = opts['slow-origin-after'] ? Date.now() + Number(opts['slow-origin-after']) * 1000 : null;
let slowed = false;
const paidSeats = new Map<string, string>(); // seat -> order id, as the visitors saw it
let doubleSoldSeenByClients = 0;

async function request(jar: CookieJar, base: string, path: string, init: RequestInit = {}) {
  const url = base + path;
  return gate.run(async () => {
    const headers = new Headers(init.headers);
    const cookie = await jar.getCookieString(url);
    if (cookie) headers.set('cookie', cookie);
    headers.set('accept', 'application/json');
    if (init.body) headers.set('content-type', 'application/json');
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) await jar.setCookie(line, url);
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // HTML (the sale page)
    }
    if (res.status >= 500) counts.httpErrors++;
    if (res.status === 429) counts.rateLimited++;
    return { status: res.status, body, retryAfterS: Number(res.headers.get('retry-after')) || 0 };
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function visitor(base: string, eventId: string, seats: string[], deadline: number): Promise<void> {
  const jar = new CookieJar();
  // Arrivals spread over the first few seconds, as a flash crowd does.
  await sleep(random() * 5_000);
  // Over the per-IP join limit (all simulated visitors share this machine's address) a browser
  // is told to come back after Retry-After: do that, as a person reloading would.
  let s = await request(jar, base, `/events/${eventId}/`);
  while (s.status === 429 && Date.now() < deadline) {
    await sleep(s.retryAfterS * 1000 * (1 + random() * 0.5));
    s = await request(jar, base, `/events/${eventId}/`);
  }
  counts.joined++;
  while (s.body.state !== 'admitted') {
    if (Date.now() > deadline) return;
    if (s.status === 200 && (s.body.state === 'closed' || s.body.state === 'sold_out')) return;
    const wait = Number(s.body.pollAfterMs) || 2_000;
    await sleep(wait * (0.8 + random() * 0.4));
    s = await request(jar, base, `/_wr/events/${eventId}/status`);
  }
  counts.admitted++;
  admittedAt.push(Date.now());
  if (slowOriginAt !== null && Date.now() >= slowOriginAt && !slowed) {
    slowed = true;
    console.log(`  origin stub slowed down (p99 ~900 ms+): ${await slowOrigin(base, eventId)}`);
  }

  await request(jar, base, `/events/${eventId}/`); // the sale page, proxied to the origin
  const map = await request(jar, base, `/_wr/events/${eventId}/seats`);
  const free = ((map.body.seats as { id: string; status: string }[] | undefined) ?? [])
    .filter((x) => x.status === 'AVAILABLE')
    .map((x) => x.id);
  const pool = random() < 0.4 ? seats.slice(0, HOT_SEATS) : free.length ? free : seats;
  const want = 1 + Math.floor(random() * 4);
  const pick = [...new Set(Array.from({ length: want }, () => pool[Math.floor(random() * pool.length)]!))];
  const key = crypto.randomUUID();
  const hold = await request(jar, base, `/_wr/events/${eventId}/holds`, {
    method: 'POST',
    headers: { 'idempotency-key': key },
    body: JSON.stringify({ seatIds: pick }),
  });
  if (hold.status === 201 && random() < 0.1) {
    // A client retry after a lost response: the same key must return the same hold.
    const again = await request(jar, base, `/_wr/events/${eventId}/holds`, {
      method: 'POST',
      headers: { 'idempotency-key': key },
      body: JSON.stringify({ seatIds: pick }),
    });
    if (again.body.holdId !== hold.body.holdId) throw new Error('idempotent retry returned another hold');
  }
  if (hold.status === 201) counts.holdsGranted++;
  else if (hold.status === 409) counts.holdsRefused++;
  else counts.holdErrors++;

  if (hold.status === 201) {
    const r = random();
    if (r < 0.7) {
      // 5 % declined cards, 3 % cards whose authorization answer is lost (the order is PROCESSING until the webhook).
      const card = r < 0.05 ? '4000 0000 0000 0002' : r < 0.08 ? '4000 0000 0000 0119' : '4242 4242 4242 4242';
      let paid = await request(jar, base, `/events/${eventId}/checkout`, {
        method: 'POST',
        body: JSON.stringify({ holdId: hold.body.holdId, card }),
      });
      if (paid.body.status === 'PROCESSING') {
        counts.processing++;
        // Follow the order as the sale page does, until its outcome is known.
        for (let i = 0; i < 60 && paid.body.status === 'PROCESSING'; i++) {
          await sleep(1_000);
          paid = await request(jar, base, `/events/${eventId}/orders/${String(paid.body.orderId)}`);
        }
      }
      if (paid.body.status === 'PAID') {
        counts.paid++;
        for (const seat of paid.body.seatIds as string[]) {
          if (paidSeats.has(seat)) doubleSoldSeenByClients++;
          paidSeats.set(seat, paid.body.orderId as string);
        }
      } else if (card.startsWith('4000')) counts.declined++;
      else counts.checkoutFailed++;
    } else {
      counts.abandoned++;
      if (r < 0.85) await request(jar, base, `/_wr/events/${eventId}/holds/${hold.body.holdId}`, { method: 'DELETE' });
      // else: walk away; the hold expires by itself
    }
  }
  await request(jar, base, `/_wr/events/${eventId}/leave`, { method: 'POST' });
}

async function reachable(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/.well-known/jwks.json`)).ok;
  } catch {
    return false;
  }
}

/**
 * The stub's demo switch, on its signed operator API (issue #14.7: it used to be a visitor route):
 * `PUT /admin/events/{id}/load`, signed with ORIGIN_HMAC_SECRET from .dev.vars. It reaches the stub
 * through the gateway, which passes paths no room covers straight to the origin.
 */
async function slowOrigin(base: string, eventId: string): Promise<string> {
  const secret = existsSync(join(ROOT, '.dev.vars')) ? parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ORIGIN_HMAC_SECRET : '';
  if (!secret) return 'skipped (no ORIGIN_HMAC_SECRET in .dev.vars)';
  const path = `/admin/events/${eventId}/load`;
  const body = JSON.stringify({ baseLatencyMs: 900, capacityKnee: 5 });
  const headers = { 'content-type': 'application/json', ...(await signOriginRequest(secret, 'PUT', path, body, Date.now())) };
  const res = await fetch(base + path, { method: 'PUT', headers, body });
  return `${res.status} ${await res.text()}`;
}

async function main(): Promise<void> {
  let server: Pick<DevServer, 'url' | 'adminToken'> & { stop?: () => Promise<void> };
  let state: string | null = null;
  if (opts.url !== undefined && (await reachable(opts.url))) {
    const vars = existsSync(join(ROOT, '.dev.vars')) ? parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')) : {};
    server = { url: opts.url!, adminToken: process.env.ADMIN_TOKEN ?? vars.ADMIN_TOKEN ?? '' };
    console.log(`Using the gateway at ${server.url}`);
  } else {
    state = mkdtempSync(join(tmpdir(), 'wr-crowd-'));
    console.log('No gateway running: starting one (wrangler dev, temporary storage)...');
    server = await startDevServer({ port: await freePort(), persistTo: state, quiet: true });
  }
  const eventId = `crowd-${Date.now().toString(36)}`;
  const seatCount = Number(opts.seats);
  const minRate = Number(opts['min-rate'] ?? Math.max(1, Math.floor(RATE / 4)));
  await putEvent(server, eventId, {
    name: 'Crowd simulation',
    releaseRatePerMinute: RATE,
    minReleaseRatePerMinute: minRate,
    maxActiveVisitors: Number(opts['max-active']),
    seats: seatCount,
    seatsPerRow: 25,
    holdTtlSeconds: 60,
    admissionTtlSeconds: 300,
  });
  const seatIds = seatIdsFor(seatCount, 25);
  console.log(`Event ${eventId}: ${seatCount} seats, release rate ${minRate}-${RATE}/min, ${VISITORS} visitors\n`);

  const started = Date.now();
  const deadline = started + MAX_MS;
  const progress = setInterval(() => {
    const s = ((Date.now() - started) / 1000).toFixed(0);
    console.log(
      `  ${s.padStart(4)} s  joined ${counts.joined}  admitted ${counts.admitted}  holds ${counts.holdsGranted}/${counts.holdsRefused} refused  paid ${counts.paid}`,
    );
  }, 5_000);
  const results = await Promise.allSettled(Array.from({ length: VISITORS }, () => visitor(server.url, eventId, seatIds, deadline)));
  clearInterval(progress);
  const crashed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];

  const statsRes = await fetch(`${server.url}/_wr/admin/events/${eventId}`, { headers: { authorization: `Bearer ${server.adminToken}` } });
  const stats = (await statsRes.json()) as {
    queue: { releaseRatePerMinute: number; rateLog: { at: number; rate: number; reason: string }[]; admittedTotal: number };
    inventory: {
      seats: { sold: number; held: number; available: number };
      consistency: { seatsWithMultipleOrders: number; soldSeatsWithoutMatchingOrder: number };
    };
  };
  const elapsedS = (Date.now() - started) / 1000;
  const span = admittedAt.length > 1 ? (Math.max(...admittedAt) - Math.min(...admittedAt)) / 60_000 : 0;
  const observed = span > 0 ? (admittedAt.length - 1) / span : 0;
  const ok = Object.values(stats.inventory.consistency).every((v) => v === 0) && doubleSoldSeenByClients === 0 && crashed.length === 0;
  const row = (k: string, v: string | number) => console.log(`  ${k.padEnd(50)} ${v}`);
  console.log(`\nCrowd summary (${elapsedS.toFixed(0)} s, event ${eventId})`);
  row('visitors joined / admitted', `${counts.joined} / ${counts.admitted}`);
  row('admitted per minute (observed, while admitting)', observed.toFixed(0));
  row('release rate configured (min-max per minute)', `${minRate}-${RATE}`);
  row('release rate at the end (controller)', stats.queue.releaseRatePerMinute);
  row('last rate change', stats.queue.rateLog[0]?.reason ?? '-');
  if (slowed) {
    console.log('  rate changes, newest first:');
    for (const e of stats.queue.rateLog.slice(0, 8))
      console.log(`    ${new Date(e.at).toISOString().slice(11, 19)}  ${String(e.rate).padStart(5)}/min  ${e.reason}`);
  }
  row('holds granted / refused (409) / other errors', `${counts.holdsGranted} / ${counts.holdsRefused} / ${counts.holdErrors}`);
  row('checkouts paid / declined card / failed', `${counts.paid} / ${counts.declined} / ${counts.checkoutFailed}`);
  row('checkouts PROCESSING (answer lost), followed to the end', counts.processing);
  row('holds abandoned', counts.abandoned);
  row('seats sold (inventory)', stats.inventory.seats.sold);
  row('seats sold (paid orders seen by visitors)', paidSeats.size);
  row('HTTP 5xx answers', counts.httpErrors);
  row('429 answers (per-IP join limit; all visitors share one IP)', counts.rateLimited);
  row('sold seats with more than one order', stats.inventory.consistency.seatsWithMultipleOrders);
  row('sold seats without a matching order', stats.inventory.consistency.soldSeatsWithoutMatchingOrder);
  row('seats paid twice, as seen by visitors', doubleSoldSeenByClients);
  if (crashed.length) console.log(`  simulated visitors that crashed: ${crashed.length} (first: ${String(crashed[0]!.reason)})`);
  console.log(`\nConsistency check: ${ok ? 'PASS' : 'FAIL'}`);
  if (stats.inventory.seats.sold !== paidSeats.size) console.log('Note: inventory and visitors disagree on seats sold.');
  await server.stop?.();
  if (state) rmSync(state, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
}

await main();
