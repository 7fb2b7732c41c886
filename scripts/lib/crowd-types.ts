// A crowd run's settings, samples and results (scripts/lib/crowd-run.ts runs one; crowd-measures.ts
// reads the results; scripts/crowd.ts and scripts/bench-control.ts print them).

/** The origin stub's capacity model: base latency (ms) and the concurrent requests it serves at that latency. */
export interface OriginModel {
  baseLatencyMs: number;
  capacityKnee: number;
}

/** A crowd run's settings. Rates per minute, times in s. */
export interface CrowdOptions {
  visitors: number;
  seats: number;
  maxPerMinute: number;
  minPerMinute: number;
  maxActive: number;
  /** The event's p99 target, ms (800). */
  targetP99Ms: number;
  /** Stop after this long, s. */
  maxSeconds: number;
  /**
   * Requests in flight at most for joins and waiting visitors' polls (one shared client, so a
   * flash crowd does not open thousands of sockets at once). Admitted visitors' requests do not
   * wait behind it: each is its own browser (one request at a time, its own think time).
   */
  concurrency: number;
  /**
   * The coupled crowd, kept to reproduce that load: admitted visitors' requests also wait
   * behind the shared `concurrency` cap, and a stay is a fixed number of pages (staySeconds / 2)
   * however long each takes. With a slow origin that coupled every visit to the cap: 48 requests
   * shared by ~360 visitors stretched 20 s visits to minutes and active never drained.
   */
  coupled: boolean;
  seed: number;
  /** Share of visitors (0..1) who join, then never come back: their released place is never claimed. */
  noShowShare: number;
  /**
   * Admitted visitors browse the sale page for this long, s of wall time (a page, then ~2 s of
   * thought, until it has passed), then buy: a slow origin means fewer pages, not a longer stay.
   */
  staySeconds: number;
  /** The origin's capacity model from the start (null: the stub's own, 20 ms and 50). */
  origin: OriginModel | null;
  /** Changes of the capacity model during the run: after `atS` seconds, `model`. */
  originChanges: { atS: number; model: OriginModel }[];
  /** Print a line every 5 s. */
  progress: boolean;
  /** The event takes returns (`resale`), for a resale round after the sale (scripts/lib/crowd-resale.ts). */
  resale: boolean;
}

export const DEFAULT_CROWD: CrowdOptions = {
  visitors: 500,
  seats: 1000,
  maxPerMinute: 1200,
  minPerMinute: 300,
  maxActive: 200,
  targetP99Ms: 800,
  maxSeconds: 600,
  concurrency: 48,
  coupled: false,
  seed: 1,
  noShowShare: 0,
  staySeconds: 0,
  origin: null,
  originChanges: [],
  progress: true,
  resale: false,
};

/** One sample of the room (GET /_wr/admin/events/{id}), every SAMPLE_MS. */
export interface CrowdSample {
  /** Seconds since the run started. */
  t: number;
  binds: string;
  detail: string;
  rate: number;
  activeLimit: number;
  active: number;
  unclaimed: number;
  waiting: number;
  /** Places released so far (the room's count). */
  released: number;
  /** Admissions claimed so far (the crowd's count: visitors whose poll said admitted). */
  claimed: number;
  /** The origin's last reported p99, ms (null before its first report), and when it was reported (s). */
  p99: number | null;
  reportedAtS: number | null;
  /** Requests in flight now: through the shared client (joins, polls), and admitted visitors' own. */
  sharedInFlight: number;
  visitorInFlight: number;
}

/** What a run measured. */
export interface CrowdResult {
  eventId: string;
  /** When the run started, epoch ms (sample times and rate log entries count from here). */
  startedAtMs: number;
  elapsedS: number;
  joined: number;
  admitted: number;
  noShows: number;
  /** When each visitor claimed an admission, s since start. */
  admittedAtS: number[];
  /** Each finished visit: claimed at, and left (POST /leave answered) at, s since start. */
  visits: { fromS: number; toS: number }[];
  samples: CrowdSample[];
  /** Every change of rate or limit during the run, newest first. */
  rateLog: { at: number; rate: number; reason: string }[];
  /** Every capacity-model change the stub accepted (false when one was refused or could not reach it). */
  originModelApplied: boolean;
  /** When the origin's first health report was acted on, s since start (null: never). */
  firstReportS: number | null;
  counts: Record<string, number>;
  consistent: boolean;
  soldSeats: number;
}
