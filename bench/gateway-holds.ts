// The gateway bench's hold scenarios (bench/gateway.ts runs them after bench/gateway-requests.ts's):
// holds inside the object, the Inventory RPC alone, holds end to end (with the real Inventory, a
// stub one, a sales channel's, and over venue sections) and the seat map's readers, with the
// inventory's consistency checked after them. Also the seat ids the hold bodies name.
import { createHmac } from 'node:crypto';
import { CHANNEL_KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signingInputV2 } from '../origin-sdk/src/protocol.ts';
import { PER_ROW, SEATS, admittedVisitors, jarCookie, load, type BenchGateway } from './harness.ts';
import { STUB_HEADER } from './bench-routes.ts';
import { pickSeatIndexes, prng } from './hotspot.ts';
import { cpuMeter } from './process-cpu.ts';
import {
  DURATION_S,
  HOLDS_PER_REP,
  IN_OBJECT_BATCH,
  SECTIONS,
  VISITORS,
  roomRequests,
  type Rep,
  type Scenario,
} from './gateway-context.ts';

const IN_OBJECT_HOLDS = 3_000;
const SECTION_NAMES = Array.from({ length: SECTIONS }, (_, i) => `S${i + 1}`);
/** The bench events' seat ids, row-major (asked from the bench Worker: Node does not load object code). */
let ids: string[] = [];
/** Seat ids of each section of the sectioned events, by section count (SEATS / count seats each, PER_ROW to a row). */
const sectionIds = new Map<number, string[][]>();

/**
 * Asks the bench Worker for the bench events' seat ids (the whole plan, and each section's for 1
 * and SECTIONS sections); call once before the first repetition.
 */
export async function loadSeatIds(gw: BenchGateway): Promise<void> {
  ids = (await (await fetch(`${gw.base}/__bench/seat-ids?count=${SEATS}&perRow=${PER_ROW}`)).json()) as string[];
  for (const count of [1, SECTIONS]) {
    const names = SECTION_NAMES.slice(0, count);
    const url = (section: string) => `${gw.base}/__bench/seat-ids?count=${SEATS / count}&perRow=${PER_ROW}&section=${section}`;
    sectionIds.set(count, await Promise.all(names.map(async (section) => (await (await fetch(url(section))).json()) as string[])));
  }
}

/** Hot-spot hold bodies (1-6 adjacent seats, 80 % of them among the best 5 %), deterministic per seed. */
function holdBodies(seed: number): () => string {
  const random = prng(seed);
  return () => JSON.stringify({ seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => ids[k]!) });
}

/**
 * The same hot-spot holds on an event of `sections` sections: row r of the 50,000-seat plan is row
 * r / sections of section r % sections, so the best rows (and the contention) spread evenly.
 */
function sectionHoldBodies(seed: number, sections: number): () => string {
  const random = prng(seed);
  return () =>
    JSON.stringify({
      seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => {
        const row = Math.floor(k / PER_ROW);
        return sectionIds.get(sections)![row % sections]![Math.floor(row / sections) * PER_ROW + (k % PER_ROW)]!;
      }),
    });
}

/**
 * HOLDS_PER_REP holds through the gateway: POSTs to the event's holds route, each from the next of
 * `cookies`' admitted visitors with a fresh idempotency key (`keyPrefix`-rep-n), the next of
 * `body`'s requests and the `extra` headers.
 */
function holdLoad(
  r: Rep,
  event: string,
  cookies: string[],
  body: () => string,
  keyPrefix = 'k',
  extra: Record<string, string> = {},
): ReturnType<typeof load> {
  let n = 0;
  return load(`${r.gw.base}/_wr/events/${event}/holds`, DURATION_S, {
    amount: HOLDS_PER_REP,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          headers: {
            ...req.headers,
            ...extra,
            cookie: cookies[n % VISITORS]!,
            'content-type': 'application/json',
            'idempotency-key': `${keyPrefix}-${r.rep}-${n++}`,
          },
          body: body(),
        }),
      },
    ],
  });
}

/** "H held / R refused / other codes" of a hold load's answers (201 held, 409 refused). */
function holdAnswers(s: { codes: Record<string, number> }): string {
  const other = Object.entries(s.codes).filter(([c]) => c !== '201' && c !== '409');
  return `${s.codes['201'] ?? 0} held / ${s.codes['409'] ?? 0} refused / ${other.map(([c, v]) => `${v} x ${c}`).join(', ') || 'no other'}`;
}

/**
 * Holds end to end on an event whose seats are `sections` venue sections (one Inventory object
 * each, the account ledger in front): the `holds` row's visitors, seeds and mix. Checks after every
 * repetition that no seat is oversold and the summed consistency counters are 0.
 */
const sectionedHolds = (sections: number) => async (r: Rep) => {
  const event = `bench-sec${sections}-${r.rep}`;
  const perSection = SEATS / sections;
  await r.gw.createEvent(event, {
    seats: 0,
    sections: SECTION_NAMES.slice(0, sections).map((section) => ({ section, seats: perSection, seatsPerRow: PER_ROW, priceMinor: 5000 })),
  });
  const cookies = (await admittedVisitors(r.gw, event, VISITORS)).map(jarCookie);
  const s = await holdLoad(r, event, cookies, sectionHoldBodies(1000, sections));
  const stats = (await (await fetch(`${r.gw.base}/_wr/admin/events/${event}`, { headers: r.gw.admin })).json()) as {
    inventory: { consistency: Record<string, number>; seats: Record<string, number>; sections: { count: number; missing: number } };
  };
  const inv = stats.inventory;
  const taken = inv.seats['held']! + inv.seats['paymentPending']! + inv.seats['needsReconciliation']! + inv.seats['sold']!;
  if (Object.values(inv.consistency).some((v) => v !== 0) || inv.sections.missing !== 0 || inv.sections.count !== sections || taken > SEATS)
    throw new Error(`inconsistent sectioned inventory: ${JSON.stringify(inv)}`);
  r.fact(`${sections}-section hold answers`, `${holdAnswers(s)}; ${taken} seats taken, consistency 0`);
  return s;
};

/** The `holdMany` calls event `event`'s Inventory served so far and the holds they carried (bench-objects.ts BenchInventory.batchCounts). */
async function holdBatches(r: Rep, event: string): Promise<{ calls: number; holds: number }> {
  return (await (await fetch(`${r.gw.base}/__bench/hold-batches?event=${event}`)).json()) as { calls: number; holds: number };
}

/** Admitted visitors' cookies and their event, per repetition (the holds row's, for the rows after it). */
const seatMapCookies = new Map<number, { event: string; cookies: string[] }>();

/** The scenarios from the in-object holds to the sectioned holds, in the order every repetition runs them. */
export const HOLD_SCENARIOS: Scenario[] = [
  {
    // In-object: one request runs IN_OBJECT_HOLDS holds back to back inside a fresh Inventory.
    id: 'in-object',
    run: async (r) => {
      const event = `bench-in-${r.rep}`;
      await r.gw.createEvent(event);
      const cpu = cpuMeter();
      const t0 = performance.now();
      const res = await fetch(`${r.gw.base}/__bench/in-object?event=${event}&n=${IN_OBJECT_HOLDS}&seats=${SEATS}&perRow=${PER_ROW}&seed=1`);
      const { granted } = (await res.json()) as { granted: number };
      r.fact('in-object holds granted', `${granted} of ${IN_OBJECT_HOLDS}`);
      const rps = IN_OBJECT_HOLDS / ((performance.now() - t0) / 1000);
      return { rps, p50: NaN, p99: NaN, codes: {}, errors: 0, total: IN_OBJECT_HOLDS, cpuUs: cpu() / IN_OBJECT_HOLDS };
    },
  },
  {
    // The same holds inside a fresh Inventory, IN_OBJECT_BATCH at a time through `holdMany` (as
    // the edge coalesces them): what a batch saves inside the object (one sweep, commit, alarm check).
    id: 'in-object-batch',
    run: async (r) => {
      const event = `bench-inb-${r.rep}`;
      await r.gw.createEvent(event);
      const cpu = cpuMeter();
      const t0 = performance.now();
      const query = `event=${event}&n=${IN_OBJECT_HOLDS}&seats=${SEATS}&perRow=${PER_ROW}&seed=1&batch=${IN_OBJECT_BATCH}`;
      const { granted } = (await (await fetch(`${r.gw.base}/__bench/in-object?${query}`)).json()) as { granted: number };
      r.fact('in-object holds granted in batches', `${granted} of ${IN_OBJECT_HOLDS}`);
      const rps = IN_OBJECT_HOLDS / ((performance.now() - t0) / 1000);
      return { rps, p50: NaN, p99: NaN, codes: {}, errors: 0, total: IN_OBJECT_HOLDS, cpuUs: cpu() / IN_OBJECT_HOLDS };
    },
  },
  {
    // The Inventory RPC alone (on the in-object row's event), without the gateway's routing,
    // credentials and validation.
    id: 'hold-direct',
    run: (r) => {
      const body = holdBodies(2000);
      return load(`${r.gw.base}/__bench/hold-direct?event=bench-in-${r.rep}`, DURATION_S, {
        amount: HOLDS_PER_REP,
        requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: body() }) }],
      });
    },
  },
  {
    // End to end: admitted visitors (real tickets and admission tokens) hold seats through the
    // gateway, then 1,000 concurrent readers follow the seat map; the inventory must stay consistent.
    id: 'holds',
    run: async (r) => {
      const event = `bench-e2e-${r.rep}`;
      await r.gw.createEvent(event);
      const cookies = (await admittedVisitors(r.gw, event, VISITORS)).map(jarCookie);
      const roomBefore = await roomRequests(r, event);
      const batchesBefore = await holdBatches(r, event);
      const s = await holdLoad(r, event, cookies, holdBodies(1000));
      // The session check's cost: WaitingRoom calls per hold (0 when the edge needs none).
      r.extra('roomCallsPerHold', ((await roomRequests(r, event)) - roomBefore) / s.total);
      // Hold coalescing (src/lib/hold-batch.ts): holds per Inventory call over the load.
      const batchesAfter = await holdBatches(r, event);
      r.extra('holdsPerBatch', (batchesAfter.holds - batchesBefore.holds) / Math.max(1, batchesAfter.calls - batchesBefore.calls));
      r.fact('end-to-end hold answers', holdAnswers(s));
      seatMapCookies.set(r.rep, { event, cookies });
      return s;
    },
  },
  {
    // The same holds by the same visitors through the same gateway code, with an Inventory that
    // stores nothing behind it (bench-objects.ts StubInventory): the gateway's own share.
    id: 'holds-stub',
    run: (r) => {
      const { event, cookies } = seatMapCookies.get(r.rep)!;
      // The stub objects by header, not by `/__bench/stub/` (whose Request copy re-streams the body).
      return holdLoad(r, event, cookies, holdBodies(3000), 's', { [STUB_HEADER]: '1' });
    },
  },
  {
    // A sales channel's holds: the box office holds the same hot-spot seats for its
    // customers, signed with its own key, straight to the Inventory (no queue, no admission token).
    // Every seat is allocated to it (50 allocations of 1,000 seats), so the allocation gate runs on
    // every hold. Requests are signed before the load (autocannon's setup is synchronous); a
    // signature stays valid for the 300 s window, longer than a repetition.
    id: 'channel-holds',
    run: async (r) => {
      const event = `bench-channel-${r.rep}`;
      await r.gw.createEvent(event);
      const res = await fetch(`${r.gw.base}/_wr/admin/events/${event}/channels/box-office`, {
        method: 'PUT',
        headers: r.gw.admin,
        body: JSON.stringify({ name: 'Box office' }),
      });
      const { keyId, secret } = (await res.json()) as { keyId: string; secret: string };
      const releaseAt = new Date(Date.now() + 3_600_000).toISOString();
      for (let a = 0; a * 1000 < ids.length; a++) {
        const put = await fetch(`${r.gw.base}/_wr/admin/events/${event}/allocations/box-${a}`, {
          method: 'PUT',
          headers: r.gw.admin,
          body: JSON.stringify({ channelId: 'box-office', seatIds: ids.slice(a * 1000, (a + 1) * 1000), releaseAt }),
        });
        if (put.status !== 201) throw new Error(`allocation ${a}: ${put.status} ${await put.text()}`);
      }
      const path = `/_wr/channel/events/${event}/holds`;
      const ts = String(Math.floor(Date.now() / 1000));
      const body = holdBodies(1000 + r.rep);
      // Signed v2 (the Idempotency-Key is covered, docs/reference/api.md): each request's key is signed with it.
      const signed = Array.from({ length: 40_000 }, (_, n) => {
        const text = JSON.stringify({ account: `walk-in-${n % 5000}`, ...(JSON.parse(body()) as object) });
        const key = `c-${r.rep}-${n}`;
        const mac = createHmac('sha256', secret)
          .update(signingInputV2('POST', path, ts, key, text))
          .digest('hex');
        return {
          text,
          headers: { [CHANNEL_KEY_HEADER]: keyId, [TIMESTAMP_HEADER]: ts, [SIGNATURE_HEADER]: `v2=${mac}`, 'idempotency-key': key },
        };
      });
      let n = 0;
      const s = await load(`${r.gw.base}${path}`, DURATION_S, {
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              const one = signed[n++ % signed.length]!;
              return {
                ...req,
                headers: { ...req.headers, ...one.headers, 'content-type': 'application/json' },
                body: one.text,
              };
            },
          },
        ],
      });
      const other = Object.entries(s.codes).filter(([c]) => c !== '201' && c !== '409');
      r.fact(
        'channel hold answers',
        `${s.codes['201'] ?? 0} held / ${s.codes['409'] ?? 0} refused / ${other.map(([c, v]) => `${v} x ${c}`).join(', ') || 'no other'}`,
      );
      return s;
    },
  },
  {
    // The seat map for 1,000 concurrent readers (admitted visitors' cookies, round robin), as a
    // sale page reads it: one snapshot, then deltas since its version. Then the consistency check.
    id: 'seat-map',
    run: async (r) => {
      const { event, cookies } = seatMapCookies.get(r.rep)!;
      const snapshot = await (await fetch(`${r.gw.base}/_wr/events/${event}/seats`, { headers: { cookie: cookies[0]! } })).text();
      const version = (JSON.parse(snapshot) as { version: number }).version;
      if (r.rep === 0) r.fact('seat map snapshot', `${(snapshot.length / 1024).toFixed(0)} KiB for ${SEATS.toLocaleString()} seats`);
      let m = 0;
      const s = await load(`${r.gw.base}/_wr/events/${event}/seats?since=${version}`, DURATION_S, {
        connections: 1000,
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[m++ % VISITORS]! } }) }],
      });
      r.fact('seat map answers', `${JSON.stringify(s.codes)}, ${s.errors} errors`);
      const stats = (await (await fetch(`${r.gw.base}/_wr/admin/events/${event}`, { headers: r.gw.admin })).json()) as {
        inventory: { consistency: Record<string, number> };
      };
      if (Object.values(stats.inventory.consistency).some((v) => v !== 0))
        throw new Error(`inconsistent inventory: ${JSON.stringify(stats.inventory.consistency)}`);
      return s;
    },
  },
  // Holds over sections: 1 section (the ledger's cost alone) and SECTIONS sections (the split).
  { id: 'holds-sec1', run: sectionedHolds(1) },
  { id: 'holds-secN', run: sectionedHolds(SECTIONS) },
];
