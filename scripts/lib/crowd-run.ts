// One crowd run: simulated visitors (each with its own cookie jar) through the gateway's real HTTP
// path against a fresh event, with the origin stub's capacity model set and changed on schedule;
// samples what binds admissions, the rate, the limit and the origin's p99 every second. The closed-loop
// benchmark of the release controller (scripts/crowd.ts, scripts/bench-control.ts). Here: the
// visitors' walk and the run's result; their requests: crowd-client.ts; the room's samples:
// crowd-sampler.ts.
import { CookieJar } from 'tough-cookie';
import { putEvent, type DevServer } from './dev-server.ts';
import { seededRandom as prng } from './seeded-random.ts';
import { Gate, crowdClient, setOriginModel } from './crowd-client.ts';
import { sampleRoom } from './crowd-sampler.ts';
import type { CrowdOptions, CrowdResult, OriginModel } from './crowd-types.ts';

export { DEFAULT_CROWD, type CrowdOptions, type CrowdResult, type OriginModel } from './crowd-types.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HOT_SEATS = 30; // overlapping on purpose: many visitors want the same front-row seats

/**
 * Runs one crowd against `server`: creates a fresh event, sends `visitors` through it, and samples
 * the room every second (crowd-sampler.ts SAMPLE_MS).
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
    ...(o.resale ? { resale: { returnDeadline: new Date(Date.now() + 86_400_000).toISOString(), offerSeconds: 300 } } : {}),
  });
  let originModelApplied = true;
  const applyModel = async (m: OriginModel) => {
    const answer = await setOriginModel(base, eventId, m);
    if (!answer.startsWith('200')) originModelApplied = false;
    return answer;
  };
  if (o.origin) log(`  origin model ${JSON.stringify(o.origin)}: ${await applyModel(o.origin)}`);

  const { request, visitorInFlight } = crowdClient(base, gate, o.coupled, counts);

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

  const sampler = sampleRoom(server, eventId, started, {
    claimed: () => counts.admitted!,
    sharedInFlight: () => gate.active,
    visitorInFlight,
  });
  const samples = sampler.samples;
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
  await sampler.stop();
  if (crashed.length) log(`  simulated visitors that crashed: ${crashed.length} (first: ${String(crashed[0])})`);
  const end = await sampler.final();
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
    rateLog: sampler.rateLog(),
    originModelApplied,
    firstReportS: first ? first.reportedAtS : null,
    counts,
    consistent: Object.values(end.inventory.consistency).every((v) => v === 0) && paidTwice === 0 && crashed.length === 0,
    soldSeats: end.inventory.seats.sold,
  };
}
