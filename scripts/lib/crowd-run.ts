// One crowd run: simulated visitors (each with its own cookie jar) through the gateway's real HTTP
// path against a fresh event, with the origin stub's capacity model set and changed on schedule;
// samples what binds admissions, the rate, the limit and the origin's p99 every second. The closed-loop
// benchmark of the release controller (scripts/crowd.ts, scripts/bench-control.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CookieJar } from 'tough-cookie';
import { signOriginRequest } from '../../origin-sdk/src/index.ts';
import { ROOT, putEvent, type DevServer } from './dev-server.ts';
import { parseDevVars } from './dev-secrets.ts';
import type { CrowdOptions, CrowdResult, CrowdSample, OriginModel } from './crowd-types.ts';

export { DEFAULT_CROWD, type CrowdOptions, type CrowdResult, type OriginModel } from './crowd-types.ts';

/** Deterministic PRNG (mulberry32), so a run can be repeated with a seed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Bounds the requests in flight, so the crowd does not open thousands of sockets at once. Joins
 * wait behind everyone else's requests: in a real crowd each browser has its own connection, so a
 * burst of arrivals does not delay the polls and purchases of visitors already in line; with one
 * FIFO queue a loaded run measured the crowd's own queue (no claim for 49 s while 700 joins queued).
 */
class Gate {
  active = 0;
  private readonly waiting: { first: (() => void)[]; joins: (() => void)[] } = { first: [], joins: [] };
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  /** Runs `fn` once a slot is free; `join` requests get a slot only when no other request waits. */
  async run<T>(fn: () => Promise<T>, kind: 'join' | 'other' = 'other'): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => (kind === 'join' ? this.waiting.joins : this.waiting.first).push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      (this.waiting.first.shift() ?? this.waiting.joins.shift())?.();
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The room is sampled this often, ms: each second, so a run's series shows the rate, the limit and
 * the claims that lag releases second by second (at 2 s the 19:47 bench:control run could not tell
 * which bound cut each tick's release).
 */
const SAMPLE_MS = 1_000;
const HOT_SEATS = 30; // overlapping on purpose: many visitors want the same front-row seats

/**
 * Sets the origin stub's capacity model on its signed operator API (`PUT /admin/events/{id}/load`,
 * signed with ORIGIN_HMAC_SECRET from .dev.vars; the gateway passes paths no room covers to the origin).
 * @returns the stub's answer, as a line for the log
 */
async function setOriginModel(base: string, eventId: string, model: OriginModel): Promise<string> {
  const secret = existsSync(join(ROOT, '.dev.vars')) ? parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ORIGIN_HMAC_SECRET : '';
  if (!secret) return 'skipped (no ORIGIN_HMAC_SECRET in .dev.vars)';
  const path = `/admin/events/${eventId}/load`;
  const body = JSON.stringify(model);
  const headers = { 'content-type': 'application/json', ...(await signOriginRequest(secret, 'PUT', path, body, Date.now())) };
  const res = await fetch(base + path, { method: 'PUT', headers, body });
  return `${res.status} ${await res.text()}`;
}

/**
 * Runs one crowd against `server`: creates a fresh event, sends `visitors` through it, and samples
 * the room every SAMPLE_MS.
 * @param log where progress lines go
 */
export async function runCrowd(
  server: Pick<DevServer, 'url' | 'adminToken'>,
  o: CrowdOptions,
  log: (line: string) => void = console.log,
): Promise<CrowdResult> {
  const random = prng(o.seed);
  const gate = new Gate(o.concurrency);
  const base = server.url;
  const counts: Record<string, number> = {
    joined: 0,
    admitted: 0,
    noShows: 0,
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
  const visits: { fromS: number; toS: number }[] = [];
  const paidSeats = new Map<string, string>();
  let paidTwice = 0;
  const eventId = `crowd-${Date.now().toString(36)}-${Math.floor(random() * 1e6).toString(36)}`;
  await putEvent(server, eventId, {
    name: 'Crowd simulation',
    releaseRatePerMinute: o.maxPerMinute,
    minReleaseRatePerMinute: o.minPerMinute,
    maxActiveVisitors: o.maxActive,
    targetP99Ms: o.targetP99Ms,
    seats: o.seats,
    seatsPerRow: 25,
    holdTtlSeconds: 60,
    admissionTtlSeconds: 300,
  });
  let originModelApplied = true;
  const applyModel = async (m: OriginModel) => {
    const answer = await setOriginModel(base, eventId, m);
    if (!answer.startsWith('200')) originModelApplied = false;
    return answer;
  };
  if (o.origin) log(`  origin model ${JSON.stringify(o.origin)}: ${await applyModel(o.origin)}`);

  let visitorInFlight = 0;
  /** One request; `kind` 'visitor' is an admitted visitor's own (no shared cap, unless `coupled`). */
  async function request(jar: CookieJar, path: string, init: RequestInit = {}, kind: 'join' | 'other' | 'visitor' = 'other') {
    const url = base + path;
    const send = async () => {
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
      if (res.status >= 500) counts.httpErrors!++;
      if (res.status === 429) counts.rateLimited!++;
      return { status: res.status, body, retryAfterS: Number(res.headers.get('retry-after')) || 0 };
    };
    if (kind === 'visitor' && !o.coupled) {
      visitorInFlight++;
      try {
        return await send();
      } finally {
        visitorInFlight--;
      }
    }
    return gate.run(send, kind === 'join' ? 'join' : 'other');
  }

  const started = Date.now();
  const deadline = started + o.maxSeconds * 1000;
  const sinceS = () => (Date.now() - started) / 1000;

  async function visitor(): Promise<void> {
    const jar = new CookieJar();
    const noShow = random() < o.noShowShare;
    // Arrivals spread over the first few seconds, as a flash crowd does.
    await sleep(random() * 5_000);
    // Over the per-IP join limit (all simulated visitors share one address) come back after Retry-After.
    let s = await request(jar, `/events/${eventId}/`, {}, 'join');
    while (s.status === 429 && Date.now() < deadline) {
      await sleep(s.retryAfterS * 1000 * (1 + random() * 0.5));
      s = await request(jar, `/events/${eventId}/`, {}, 'join');
    }
    counts.joined!++;
    if (noShow && s.body.state !== 'admitted') {
      counts.noShows!++;
      return; // joined, then closed the tab: the released place is never claimed
    }
    while (s.body.state !== 'admitted') {
      if (Date.now() > deadline) return;
      if (s.status === 200 && (s.body.state === 'closed' || s.body.state === 'sold_out')) return;
      const wait = Number(s.body.pollAfterMs) || 2_000;
      await sleep(wait * (0.8 + random() * 0.4));
      s = await request(jar, `/_wr/events/${eventId}/status`);
    }
    counts.admitted!++;
    const claimedAtS = sinceS();
    admittedAt.push(claimedAtS);
    const own = (path: string, init: RequestInit = {}) => request(jar, path, init, 'visitor');
    await own(`/events/${eventId}/`); // the sale page, proxied to the origin
    if (o.coupled) {
      for (let k = 0; k < o.staySeconds / 2 && Date.now() < deadline; k++) {
        await sleep(2_000 * (0.8 + random() * 0.4));
        await own(`/events/${eventId}/`);
      }
    } else {
      // Browses for staySeconds of wall time: think ~2 s, load a page, until the stay is over.
      const leaveAt = Date.now() + o.staySeconds * 1000;
      while (Date.now() < deadline) {
        const think = 2_000 * (0.8 + random() * 0.4);
        if (Date.now() + think >= leaveAt) break;
        await sleep(think);
        await own(`/events/${eventId}/`);
      }
    }
    if (Date.now() > deadline) return;
    const map = await own(`/_wr/events/${eventId}/seats`);
    const all = (map.body.seats as { id: string; status: string }[] | undefined) ?? [];
    const seats = all.map((x) => x.id);
    const free = all.filter((x) => x.status === 'AVAILABLE').map((x) => x.id);
    const pool = random() < 0.4 || free.length === 0 ? seats.slice(0, HOT_SEATS) : free;
    const want = 1 + Math.floor(random() * 4);
    const pick = [...new Set(Array.from({ length: want }, () => pool[Math.floor(random() * pool.length)]!))];
    const key = crypto.randomUUID();
    const hold = await own(`/_wr/events/${eventId}/holds`, {
      method: 'POST',
      headers: { 'idempotency-key': key },
      body: JSON.stringify({ seatIds: pick }),
    });
    if (hold.status === 201 && random() < 0.1) {
      // A client retry after a lost response: the same key must return the same hold.
      const again = await own(`/_wr/events/${eventId}/holds`, {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: JSON.stringify({ seatIds: pick }),
      });
      if (again.body.holdId !== hold.body.holdId) throw new Error('idempotent retry returned another hold');
    }
    if (hold.status === 201) counts.holdsGranted!++;
    else if (hold.status === 409) counts.holdsRefused!++;
    else counts.holdErrors!++;
    if (hold.status === 201) {
      const r = random();
      if (r < 0.7) {
        // 5 % declined cards, 3 % cards whose authorization answer is lost (PROCESSING until the webhook).
        const card = r < 0.05 ? '4000 0000 0000 0002' : r < 0.08 ? '4000 0000 0000 0119' : '4242 4242 4242 4242';
        let paid = await own(`/events/${eventId}/checkout`, {
          method: 'POST',
          body: JSON.stringify({ holdId: hold.body.holdId, card }),
        });
        if (paid.body.status === 'PROCESSING') {
          counts.processing!++;
          for (let i = 0; i < 60 && paid.body.status === 'PROCESSING' && Date.now() < deadline; i++) {
            await sleep(1_000);
            paid = await own(`/events/${eventId}/orders/${String(paid.body.orderId)}`);
          }
        }
        if (paid.body.status === 'PAID') {
          counts.paid!++;
          for (const seat of paid.body.seatIds as string[]) {
            if (paidSeats.has(seat)) paidTwice++;
            paidSeats.set(seat, paid.body.orderId as string);
          }
        } else if (card.startsWith('4000')) counts.declined!++;
        else counts.checkoutFailed!++;
      } else {
        counts.abandoned!++;
        if (r < 0.85) await own(`/_wr/events/${eventId}/holds/${hold.body.holdId}`, { method: 'DELETE' });
      }
    }
    await own(`/_wr/events/${eventId}/leave`, { method: 'POST' });
    visits.push({ fromS: claimedAtS, toS: sinceS() });
  }

  const samples: CrowdSample[] = [];
  // The room shows its newest RATE_LOG_SHOWN changes; gathered at every sample, the run keeps them all.
  const rateLog = new Map<string, { at: number; rate: number; reason: string }>();
  const keep = (log: { at: number; rate: number; reason: string }[]) => {
    for (const e of log) rateLog.set(`${e.at} ${e.reason}`, e);
  };
  const stats = async () =>
    (await (
      await fetch(`${base}/_wr/admin/events/${eventId}`, { headers: { authorization: `Bearer ${server.adminToken}` } })
    ).json()) as StatsBody;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        const q = (await stats()).queue;
        keep(q.rateLog);
        samples.push({
          t: sinceS(),
          binds: q.binding.binds,
          detail: q.binding.detail,
          rate: q.releaseRatePerMinute,
          activeLimit: q.activeLimit,
          active: q.active,
          unclaimed: q.binding.unclaimed,
          waiting: q.waiting,
          released: q.admittedTotal,
          claimed: counts.admitted!,
          p99: q.lastHealth?.p99LatencyMs ?? null,
          reportedAtS: q.lastHealth ? (q.lastHealth.reportedAtMs - started) / 1000 : null,
          sharedInFlight: gate.active,
          visitorInFlight,
        });
      } catch {
        // the gateway is busy; the next sample will do
      }
      await sleep(SAMPLE_MS);
    }
  })();
  const changes = o.originChanges.map((c) =>
    setTimeout(
      () => void applyModel(c.model).then((r) => log(`  ${c.atS} s: origin model ${JSON.stringify(c.model)}: ${r}`)),
      c.atS * 1000,
    ),
  );
  const progress = o.progress
    ? setInterval(() => {
        const s = samples.at(-1);
        const recent = admittedAt.filter((t) => t > sinceS() - 10).length * 6;
        log(
          `  ${sinceS().toFixed(0).padStart(4)} s  joined ${counts.joined}  admitted ${counts.admitted}  ` +
            `admitted/min (10 s) ${recent} = ${(recent / o.maxPerMinute).toFixed(2)} of max` +
            (s
              ? `  binds ${s.binds}  rate ${s.rate}  limit ${s.activeLimit}  active ${s.active}  unclaimed ${s.unclaimed}  p99 ${s.p99 ?? '-'} ms`
              : ''),
        );
      }, 5_000)
    : null;
  // Bounded in time: visitors still busy 10 s after the deadline are left behind (their requests end with the gateway).
  // Crashes are counted as they happen: a run cut at its deadline still reports them (170
  // visitors died on "connection refused" after a kill -9 of the gateway, and the summary said
  // "other errors 0").
  const crashed: unknown[] = [];
  const all = Promise.all(Array.from({ length: o.visitors }, () => visitor().catch((e: unknown) => void crashed.push(e))));
  await Promise.race([all, sleep(o.maxSeconds * 1000 + 10_000)]);
  if (progress) clearInterval(progress);
  for (const c of changes) clearTimeout(c);
  sampling = false;
  await sampler;
  if (crashed.length) log(`  simulated visitors that crashed: ${crashed.length} (first: ${String(crashed[0])})`);
  const end = await stats();
  keep(end.queue.rateLog);
  const first = samples.find((x) => x.reportedAtS !== null);
  return {
    eventId,
    startedAtMs: started,
    elapsedS: sinceS(),
    joined: counts.joined!,
    admitted: counts.admitted!,
    noShows: counts.noShows!,
    admittedAtS: admittedAt,
    visits,
    samples,
    rateLog: [...rateLog.values()].sort((a, b) => b.at - a.at),
    originModelApplied,
    firstReportS: first ? first.reportedAtS : null,
    counts,
    consistent: Object.values(end.inventory.consistency).every((v) => v === 0) && paidTwice === 0 && crashed.length === 0,
    soldSeats: end.inventory.seats.sold,
  };
}

/** The parts of GET /_wr/admin/events/{id} a run reads. */
interface StatsBody {
  queue: {
    releaseRatePerMinute: number;
    activeLimit: number;
    active: number;
    waiting: number;
    admittedTotal: number;
    binding: { binds: string; detail: string; unclaimed: number };
    lastHealth: { p99LatencyMs: number; reportedAtMs: number } | null;
    rateLog: { at: number; rate: number; reason: string }[];
  };
  inventory: { seats: { sold: number }; consistency: Record<string, number> };
}
