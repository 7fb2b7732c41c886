// The sale at full size, simulated: the calls each Durable Object of one event takes at the peak of
// the sizing example (and at a multiple of it), costed with the per-call figures the benches
// measured, as utilisation against the platform's guidance and as the queueing delay of a
// single-threaded object (a discrete-event FIFO queue with seeded Poisson arrivals). Pure and
// deterministic: the same shape and seed give the same table. `npm run bench:sim` prints it
// (bench/sale.ts); test/node/sale-sim.test.ts checks it by hand. The queue is bench/fifo-queue.ts.
import { fifoWaits, jobsOf } from './fifo-queue.ts';

/**
 * The object time of one no-op Durable Object RPC, ms: the unit every cost below is counted in.
 * Source: docs/explanation/scaling.md, the quiet run before the gateway work ("Before" table):
 * no-op Durable Object RPC 4,412 req/s on 2 cores = 0.227 ms of the whole process per call (Worker
 * and object together), so an upper bound of the object's own share.
 */
export const UNIT_MS = 1000 / 4412;

/** Cloudflare's guidance for one object: about 1,000 simple requests per second (Durable Objects FAQ). */
export const GUIDANCE_PER_S = 1000;

/**
 * Per-call object time in no-op-RPC units, each with its source. `bench:inventory` is the table
 * "The Inventory at the sizing example" in docs/explanation/scaling.md (ms/call vs a no-op RPC of
 * the same run); "C" is the one-write RPC vs the no-op RPC of the quiet "Before" run (1,978 vs
 * 4,412 req/s = 2.23 units); "assumed" is not measured and says what it stands for.
 */
export const COSTS = {
  /** WaitingRoom.cursor: one read, like getHold (bench:inventory 0.88). */
  cursor: 0.88,
  /** WaitingRoom.admit: one transaction (C). */
  admit: 2.23,
  /** WaitingRoom.wake: an alarm check, no write (assumed one no-op RPC). */
  wake: 1,
  /** WaitingRoom.extendAdmission, recordHoldSignals, recordHealth: one write each (C). */
  roomWrite: 2.23,
  /** The release tick (alarm): one transaction plus merging K shards' counts (assumed C + 0.5 per shard). */
  tickBase: 2.23,
  tickPerShard: 0.5,
  /** QueueShard.joinMany of b joins: one RPC + one write per join (C split as 1 + 1.23 b). */
  joinCall: 1,
  joinEach: 1.23,
  /** QueueShard.counts: reads and moves its state (C). */
  counts: 2.23,
  /** EventDirectory.roomTable: one small read (assumed as cursor). */
  roomTable: 0.88,
  /**
   * Inventory.holdMany of b holds: 2.65 + 4.13 b, fitted to bench:inventory's hold (6.78 at b = 1)
   * and the bench's in-object rows (1.52x faster per hold at b = 8: 4.46 per hold).
   */
  holdCall: 2.65,
  holdEach: 4.13,
  /** bench:inventory: getHold, payment-pending, confirm, release, expiry (per hold, in the alarm). */
  getHold: 0.88,
  startPayment: 2.9,
  confirm: 5.88,
  release: 5.95,
  expiry: 3.05,
  /** bench:inventory: a seat-map delta of 256 versions (512 seats) read from storage and serialized: once per kept delta. */
  mapDeltaBuild256: 44.07,
  /** bench:inventory: a kept delta of 256 versions handed out again, its string copied out by RPC. */
  mapDeltaCopy256: 2.45,
  /** bench:inventory: a snapshot of 50,000 seats read and serialized, at most once a second per object. */
  snapshotBuild50k: 1499.83,
  /** bench:inventory: a kept snapshot of 50,000 seats, its string copied out by RPC (the reader's side included: an upper bound). */
  snapshotCopy50k: 124.87,
  /** AccountLedger.reserve and settle: one write each (C); confirmAllowed: one read (as getHold). */
  ledgerWrite: 2.23,
  ledgerRead: 0.88,
} as const;

/** The sale's shape at its peak second (all peaks together: the worst case). */
export interface SaleShape {
  /** Visitors arriving over the sale, and the seconds they arrive in. */
  arrivals: number;
  saleSeconds: number;
  /** Seconds of the opening burst and the share of arrivals in it (joins peak there). */
  burstSeconds: number;
  burstShare: number;
  seats: number;
  /** Per second at the peak. */
  holdsPerS: number;
  paymentPendingPerS: number;
  confirmsPerS: number;
  /** The origin reads each hold once before taking payment (getHold). */
  originReadsPerS: number;
  /** Holds that end without a sale, per second: released by the buyer, and expired. */
  releasesPerS: number;
  expiriesPerS: number;
  /** Released visitors who come to claim their admission, per second (one admit each; "a few hundred": docs/explanation/scaling.md). */
  admissionsPerS: number;
  /**
   * Share of granted holds that outlast their admission (one extendAdmission each): with the default
   * 600 s admission, 300 s hold TTL and 120 s payment grace, holds placed in an admission's last 180 s.
   */
  coverShare: number;
  /** Share of holds refused (each gives its ledger reservation back). */
  refusedShare: number;
  dataCentres: number;
  /** Gateway isolates per data centre that serve this event. */
  isolatesPerDc: number;
  queueShards: number;
  sections: number;
  ledgerShards: number;
  /** Distinct `since` keys a data centre asks each object's seat-map deltas with, per second. */
  deltaKeysPerDc: number;
  /** Seats one version changes (a hold's seats; the bench's holds take 2). */
  seatsPerVersion: number;
  healthReportsPerS: number;
  /** One object round trip, ms: how long an isolate's coalesced call is in flight. */
  roundTripMs: number;
}

/**
 * The sizing example (docs/explanation/scaling.md): 2 million arrivals in 5 minutes, 30 % of them
 * in the first 30 s (20,000 joins/s), 50,000 seats, 2,000 holds, 1,000 payment-pending and 1,000
 * confirms per second (of the 2,000 held, half released and half expired: the budget table of
 * docs/explanation/scaling.md), 500 admissions per second, 300 data centres with 2 isolates each
 * (assumed; scaled with the crowd), the object counts the docs recommend (32 queue shards, 8
 * sections, 8 ledger shards).
 */
export const SIZING: SaleShape = {
  arrivals: 2_000_000,
  saleSeconds: 300,
  burstSeconds: 30,
  burstShare: 0.3,
  seats: 50_000,
  holdsPerS: 2000,
  paymentPendingPerS: 1000,
  confirmsPerS: 1000,
  originReadsPerS: 1000,
  releasesPerS: 500,
  expiriesPerS: 500,
  admissionsPerS: 500,
  coverShare: 0.1,
  refusedShare: 0,
  dataCentres: 300,
  isolatesPerDc: 2,
  queueShards: 32,
  sections: 8,
  ledgerShards: 8,
  deltaKeysPerDc: 2,
  seatsPerVersion: 2,
  healthReportsPerS: 1,
  roundTripMs: 20,
};

/**
 * A kept seat-map delta serves readers up to this many versions past its start (DELTA_SHARE_VERSIONS
 * in durable-objects/inventory/seat-map-read.ts, which Node cannot import from here; a test keeps them equal).
 */
export const DELTA_SHARE = 256;

/** The sizing example at `x` times the crowd: every rate and the isolates serving it scale, the venue does not. */
export function scaled(shape: SaleShape, x: number): SaleShape {
  return {
    ...shape,
    arrivals: shape.arrivals * x,
    holdsPerS: shape.holdsPerS * x,
    paymentPendingPerS: shape.paymentPendingPerS * x,
    confirmsPerS: shape.confirmsPerS * x,
    originReadsPerS: shape.originReadsPerS * x,
    releasesPerS: shape.releasesPerS * x,
    expiriesPerS: shape.expiriesPerS * x,
    admissionsPerS: shape.admissionsPerS * x,
    isolatesPerDc: shape.isolatesPerDc * x,
  };
}

/** One kind of call an object takes: `perS` per second, `units` no-op RPCs each; `periodic` calls come once a second on the second. */
export interface CallLoad {
  call: string;
  perS: number;
  units: number;
  periodic?: boolean;
}

/** One object (the busiest of its kind: load is spread evenly by hash) and the calls it takes. */
export interface ObjectLoad {
  object: string;
  count: number;
  calls: CallLoad[];
}

/**
 * Mean calls per coalesced call from one isolate to one object (src/lib/coalesce.ts: a call goes at
 * once when none is in flight, the rest wait for it and go together): about 1 while an isolate's
 * rate times the round trip is under 1, that product above it.
 * @param perIsolatePerS calls one isolate makes to one object per second
 */
export function meanBatch(perIsolatePerS: number, roundTripMs: number): number {
  return Math.max(1, (perIsolatePerS * roundTripMs) / 1000);
}

/**
 * The calls each object of one event takes per second at the peak of `s`, as the code makes them:
 * cursor reads once per data centre per second (isolate copy, then the Cache API, max-age 1 s:
 * src/lib/cursor-cache.ts); room-table reads once per data centre per 3 s (ROOM_TABLE_SHARED_MS:
 * src/lib/room-table.ts); joins coalesced per isolate and shard (src/lib/shard-joins.ts), one
 * wake per shard and one counts call per shard per 1 s release tick; holds coalesced per isolate
 * and section (src/lib/hold-batch.ts), each reserving in its account's ledger shard, refused ones
 * giving it back; confirm asks the ledger and settles, releases and expiries settle; hold signals
 * once per isolate per 5 s (FLUSH_EVERY_MS); seat maps once per data centre per second per object
 * and key (isolate copy, then the Cache API: src/lib/seat-map-cache.ts; a page reading the whole
 * map reads every section): a snapshot when a new reader came, and `deltaKeysPerDc` deltas, each a
 * string the object built once and hands out for a second (seat-map-read.ts): a delta is built
 * again for about every DELTA_SHARE versions the readers' versions span (a second's worth), and
 * lists the seats of a second's versions. Session checks are 0: the cursor carries the
 * complete list of ended sessions below 5,000 early ends (src/middleware/credentials.ts).
 */
export function objectLoads(s: SaleShape): ObjectLoad[] {
  const isolates = s.dataCentres * s.isolatesPerDc;
  const joinsPerS = (s.arrivals * s.burstShare) / s.burstSeconds;
  const perShard = joinsPerS / s.queueShards;
  const joinBatch = meanBatch(perShard / isolates, s.roundTripMs);
  const perSection = (n: number) => n / s.sections;
  const holdBatch = meanBatch(perSection(s.holdsPerS) / isolates, s.roundTripMs);
  const seatShare = 1 / s.sections;
  // A snapshot is read when at least one new reader came to the data centre in that second (Poisson).
  const snapshotsPerDc = 1 - Math.exp(-s.admissionsPerS / s.dataCentres);
  const perLedger = (n: number) => n / s.ledgerShards;
  const granted = s.holdsPerS * (1 - s.refusedShare);
  const versionsPerS = perSection(granted + s.paymentPendingPerS + s.confirmsPerS + s.releasesPerS + s.expiriesPerS);
  // A reader asks with the version it got about a second ago; the delta it is handed may start up to DELTA_SHARE below.
  const deltaSize = Math.min(s.seats * seatShare, (versionsPerS + DELTA_SHARE / 2) * s.seatsPerVersion) / 512;
  const deltaReads = s.dataCentres * s.deltaKeysPerDc;
  const deltaBuilds = Math.min(deltaReads, Math.ceil(versionsPerS / DELTA_SHARE) + 1);
  return [
    {
      object: 'WaitingRoom',
      count: 1,
      calls: [
        { call: 'cursor', perS: s.dataCentres, units: COSTS.cursor },
        { call: 'admit', perS: s.admissionsPerS, units: COSTS.admit },
        { call: 'extendAdmission', perS: granted * s.coverShare, units: COSTS.roomWrite },
        { call: 'wake', perS: s.queueShards, units: COSTS.wake },
        { call: 'recordHoldSignals', perS: isolates / 5, units: COSTS.roomWrite },
        { call: 'recordHealth', perS: s.healthReportsPerS, units: COSTS.roomWrite },
        { call: 'tick', perS: 1, units: COSTS.tickBase + COSTS.tickPerShard * s.queueShards, periodic: true },
      ],
    },
    {
      object: 'QueueShard',
      count: s.queueShards,
      calls: [
        { call: `joinMany (b=${joinBatch.toFixed(2)})`, perS: perShard / joinBatch, units: COSTS.joinCall + COSTS.joinEach * joinBatch },
        { call: 'counts', perS: 1, units: COSTS.counts, periodic: true },
      ],
    },
    {
      object: 'Inventory section',
      count: s.sections,
      calls: [
        {
          call: `holdMany (b=${holdBatch.toFixed(2)})`,
          perS: perSection(s.holdsPerS) / holdBatch,
          units: COSTS.holdCall + COSTS.holdEach * holdBatch,
        },
        { call: 'getHold', perS: perSection(s.originReadsPerS), units: COSTS.getHold },
        { call: 'startPayment', perS: perSection(s.paymentPendingPerS), units: COSTS.startPayment },
        { call: 'confirm', perS: perSection(s.confirmsPerS), units: COSTS.confirm },
        { call: 'release', perS: perSection(s.releasesPerS), units: COSTS.release },
        { call: 'expiry (alarm)', perS: 1, units: COSTS.expiry * perSection(s.expiriesPerS), periodic: true },
        { call: 'seatMap delta, built', perS: deltaBuilds, units: (COSTS.mapDeltaBuild256 + COSTS.mapDeltaCopy256) * deltaSize },
        { call: 'seatMap delta, kept', perS: deltaReads - deltaBuilds, units: COSTS.mapDeltaCopy256 * deltaSize },
        { call: 'seatMap snapshot, kept', perS: s.dataCentres * snapshotsPerDc, units: Math.max(1, COSTS.snapshotCopy50k * seatShare) },
        { call: 'seatMap snapshot, built', perS: 1, units: COSTS.snapshotBuild50k * seatShare, periodic: true },
      ],
    },
    {
      object: 'AccountLedger',
      count: s.ledgerShards,
      calls: [
        { call: 'reserve', perS: perLedger(s.holdsPerS), units: COSTS.ledgerWrite },
        { call: 'settle (unplaced)', perS: perLedger(s.holdsPerS * s.refusedShare), units: COSTS.ledgerWrite },
        { call: 'confirmAllowed', perS: perLedger(s.confirmsPerS), units: COSTS.ledgerRead },
        { call: 'settle (sold, gone)', perS: perLedger(s.confirmsPerS + s.releasesPerS + s.expiriesPerS), units: COSTS.ledgerWrite },
      ],
    },
    {
      object: 'EventDirectory',
      count: 1,
      calls: [{ call: 'roomTable', perS: s.dataCentres / 3, units: COSTS.roomTable }],
    },
  ];
}

/** Requests per second an object takes (periodic alarm work is not a request). */
export const requestsPerS = (o: ObjectLoad): number => o.calls.filter((c) => !c.periodic).reduce((sum, c) => sum + c.perS, 0);

/** The share of each second an object is busy: sum of rate x cost (1 = saturated). */
export const busyShare = (o: ObjectLoad): number => o.calls.reduce((sum, c) => sum + (c.perS * c.units * UNIT_MS) / 1000, 0);

/** One object's row of the table. */
export interface ObjectResult {
  object: string;
  count: number;
  requestsPerS: number;
  /** requestsPerS / GUIDANCE_PER_S. */
  vsGuidance: number;
  busy: number;
  /** The call with the most object time. */
  topCall: string;
  /** Queueing delay over the simulated window, ms: the slowest answer's wait, and the 99th percentile. */
  maxWaitMs: number;
  p99WaitMs: number;
}

/** Simulates `seconds` of the peak of `shape` for the busiest object of each kind. */
export function simulate(shape: SaleShape, seconds = 20, seed = 1): ObjectResult[] {
  return objectLoads(shape).map((o, i) => {
    const waits = fifoWaits(jobsOf(o, seconds, seed + i, UNIT_MS)).sort((a, b) => a - b);
    const top = [...o.calls].sort((a, b) => b.perS * b.units - a.perS * a.units)[0]!;
    const req = requestsPerS(o);
    return {
      object: o.object,
      count: o.count,
      requestsPerS: req,
      vsGuidance: req / GUIDANCE_PER_S,
      busy: busyShare(o),
      topCall: top.call.replace(/ \(.*/, ''),
      maxWaitMs: waits.length ? waits[waits.length - 1]! : 0,
      p99WaitMs: waits.length ? waits[Math.floor(waits.length * 0.99)]! : 0,
    };
  });
}

/** The first object over the guidance or fully busy, at a result: the one furthest over, or null. */
export function firstSaturated(results: readonly ObjectResult[]): ObjectResult | null {
  const over = results.filter((r) => r.vsGuidance >= 1 || r.busy >= 1);
  return over.sort((a, b) => Math.max(b.vsGuidance, b.busy) - Math.max(a.vsGuidance, a.busy))[0] ?? null;
}
