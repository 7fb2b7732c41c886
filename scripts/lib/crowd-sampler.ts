// A crowd run's view of the room (scripts/lib/crowd-run.ts): the room's admin stats sampled every
// SAMPLE_MS while the crowd runs (what binds admissions, the rate, the limit, the origin's p99,
// beside the crowd's own claims and requests in flight), every rate change the samples showed, and
// the stats once more at the end.
import type { DevServer } from './dev-server.ts';
import type { CrowdSample } from './crowd-types.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The room is sampled this often, ms: each second, so a run's series shows the rate, the limit and
 * the claims that lag releases second by second (at 2 s the 19:47 bench:control run could not tell
 * which bound cut each tick's release).
 */
const SAMPLE_MS = 1_000;

/** One change of the release rate or the active limit, as the room logs it (`at` in ms since the epoch). */
type RateChange = { at: number; rate: number; reason: string };

/** The crowd's own figures a sample records beside the room's. */
export interface CrowdLive {
  /** Visitors admitted so far that claimed their place. */
  claimed: () => number;
  /** Requests in flight behind the shared cap. */
  sharedInFlight: () => number;
  /** Admitted visitors' own requests in flight. */
  visitorInFlight: () => number;
}

/** A running sampler of one event's room. */
export interface RoomSampler {
  /** The samples so far, oldest first (the array grows while the sampler runs). */
  samples: CrowdSample[];
  /** Ends the sampling loop; resolves once its last sample is taken. */
  stop: () => Promise<void>;
  /** The room's stats now, with its rate log kept; called once after `stop`. */
  final: () => Promise<StatsBody>;
  /** Every rate change seen in any sample or in `final`, newest first. */
  rateLog: () => RateChange[];
}

/**
 * Starts sampling `eventId`'s room on `server` every SAMPLE_MS; a sample the gateway is too busy
 * to answer is skipped. Sample times are seconds since `startedMs`.
 */
export function sampleRoom(
  server: Pick<DevServer, 'url' | 'adminToken'>,
  eventId: string,
  startedMs: number,
  live: CrowdLive,
): RoomSampler {
  const base = server.url;
  const started = startedMs;
  const sinceS = () => (Date.now() - started) / 1000;
  const samples: CrowdSample[] = [];
  // The room shows its newest RATE_LOG_SHOWN changes; gathered at every sample, the run keeps them all.
  const rateLog = new Map<string, RateChange>();
  const keep = (log: RateChange[]) => {
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
          claimed: live.claimed(),
          p99: q.lastHealth?.p99LatencyMs ?? null,
          reportedAtS: q.lastHealth ? (q.lastHealth.reportedAtMs - started) / 1000 : null,
          sharedInFlight: live.sharedInFlight(),
          visitorInFlight: live.visitorInFlight(),
        });
      } catch {
        // the gateway is busy; the next sample will do
      }
      await sleep(SAMPLE_MS);
    }
  })();
  return {
    samples,
    stop: async () => {
      sampling = false;
      await sampler;
    },
    final: async () => {
      const end = await stats();
      keep(end.queue.rateLog);
      return end;
    },
    rateLog: () => [...rateLog.values()].sort((a, b) => b.at - a.at),
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
