// The gateway bench's printed rows (bench/gateway.ts prints them in this order): each scenario's
// name, the baseline its ratio is taken against, its target if it has one, and the note after it
// (ratios to other rows, the extra figures its scenario recorded).
import { IN_OBJECT_BATCH, SECTIONS, type Medians, type Row } from './gateway-context.ts';

/** A difference with its sign, whole units: `+12`, `-9`. */
const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(0)}`;

/** Busy time per request, us, if the run kept one thread busy: 1e6 / req/s. */
const usPer = (rps: number) => 1e6 / rps;

/** The mean batch of a joins row, for its note. */
const batchNote = (m: Medians, id: string) => `mean batch ${m.extra(`batch-${id}`).toFixed(1)} joins per shard call`;

/** The table's rows, top to bottom; a row whose scenario did not run is left out. */
export const ROWS: Row[] = [
  { id: 'noop', name: 'no-op Worker route', note: () => 'baseline A' },
  { id: 'noop-shaped', name: 'no-op Worker route, poll-shaped requests', vs: 'noop', note: () => "baseline A' (ratio vs A)" },
  { id: 'noop-do', name: 'no-op Durable Object RPC', vs: 'noop', note: () => 'baseline B (ratio vs A)' },
  { id: 'forward', name: 'no-op forward to the origin Worker', vs: 'noop', note: () => "baseline F (ratio vs A): the hop's own cost" },
  {
    id: 'pass-through',
    name: 'pass-through (no room covers the URL)',
    // Against the bare forward F (pass-through >= 0.90 of F): the hop is the origin's,
    // what is left is the gateway's share.
    vs: 'forward',
    target: 0.9,
    note: (m) =>
      `ratio vs F; vs A: ${(m.rps('pass-through') / m.rps('noop')).toFixed(2)}; object calls per request ${m
        .extra('callsPerPassThrough')
        .toFixed(5)} (target 0)`,
  },
  {
    id: 'admitted-page',
    name: 'admitted page request in a room',
    vs: 'forward',
    target: 0.9,
    note: (m) =>
      `ratio vs F; CPU ${signed(m.cpu('admitted-page') - m.cpu('forward'))} us over F (target <= +50); WaitingRoom calls per request ${m
        .extra('callsPerAdmittedPage')
        .toFixed(4)}`,
  },
  { id: 'write-do', name: 'Durable Object RPC with one SQLite upsert', vs: 'noop-do', note: () => 'baseline C (ratio vs B)' },
  {
    id: 'write-do-lone',
    name: 'C, one request at a time',
    vs: 'write-do',
    note: () => "baseline C1 (ratio vs C): a lone write's round trip",
  },
  {
    id: 'joins1-lone',
    name: 'joins, one at a time (1 connection)',
    vs: 'write-do-lone',
    // Coalescing must cost a lone join nothing: it is sent at once (src/lib/coalesce.ts).
    note: (m) => `ratio vs C1 (a lone join vs a lone write; p50 is its latency); ${batchNote(m, 'joins1-lone')}`,
  },
  {
    id: 'joins1',
    name: 'joins, 1 queue shard (new visitor each)',
    vs: 'noop',
    target: 0.5,
    note: (m) => `ratio vs A; vs C: ${(m.rps('joins1') / m.rps('write-do')).toFixed(2)}; ${batchNote(m, 'joins1')}`,
  },
  { id: 'joins4', name: 'joins, 4 queue shards', vs: 'noop', note: (m) => `ratio vs A; ${batchNote(m, 'joins4')}` },
  {
    id: 'joins1-nolimit',
    name: 'joins, 1 queue shard, no IP limiter call',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; vs C: ${(m.rps('joins1-nolimit') / m.rps('write-do')).toFixed(2)}; the limiter's share: ${(usPer(m.rps('joins1')) - usPer(m.rps('joins1-nolimit'))).toFixed(0)} us per join; ${batchNote(m, 'joins1-nolimit')}`,
  },
  {
    id: 'joins1-memlimit',
    name: 'joins, 1 queue shard, IP limiter in memory',
    vs: 'noop',
    target: 0.5,
    note: (m) =>
      `ratio vs A; vs C: ${(m.rps('joins1-memlimit') / m.rps('write-do')).toFixed(2)}; the limiter counted as Miniflare 4 and Cloudflare's per-machine counters do, not as Miniflare 5's object write (${(usPer(m.rps('joins1')) - usPer(m.rps('joins1-memlimit'))).toFixed(0)} us per join); ${batchNote(m, 'joins1-memlimit')}`,
  },
  {
    id: 'joins-stub',
    name: 'joins, gateway only (shard stores nothing)',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; us per join: gateway ${(usPer(m.rps('joins-stub')) - usPer(m.rps('noop-do'))).toFixed(0)} over a no-op RPC, shard write ${(
        usPer(m.rps('joins1')) - usPer(m.rps('joins-stub'))
      ).toFixed(0)}; ${batchNote(m, 'joins-stub')}`,
  },
  {
    id: 'joins-stub-nolimit',
    name: 'joins, gateway only, no IP limiter call',
    vs: 'joins-stub',
    note: (m) =>
      `ratio vs the gateway-only joins row; the limiter's share: ${(usPer(m.rps('joins-stub')) - usPer(m.rps('joins-stub-nolimit'))).toFixed(0)} us per join`,
  },
  {
    id: 'joins-pow',
    name: 'joins with a proof of work (verified)',
    vs: 'joins1',
    note: (m) => `ratio vs the joins row (1 shard); +${(usPer(m.rps('joins-pow')) - usPer(m.rps('joins1'))).toFixed(0)} us per join`,
  },
  {
    id: 'joins-pow-stub',
    name: 'joins with a proof of work, gateway only',
    vs: 'joins-stub',
    note: (m) => {
      const verify = usPer(m.rps('joins-pow-stub')) - usPer(m.rps('joins-stub'));
      const alone = m.extra('powSecretsUs') + m.extra('powVerifyUs');
      return `ratio vs the gateway-only joins row; +${verify.toFixed(0)} us per join = ${((verify / usPer(m.rps('joins1'))) * 100).toFixed(0)} % of a join; timed alone in the Worker: secrets ${m.extra('powSecretsUs')} + verify ${m.extra('powVerifyUs')} us = ${((alone / usPer(m.rps('joins1'))) * 100).toFixed(1)} % of a join`;
    },
  },
  {
    id: 'challenges',
    name: 'challenges handed out (GET .../challenge)',
    vs: 'noop',
    note: () => 'ratio vs A; no object call, nothing stored',
  },
  {
    id: 'polls',
    name: 'polls of waiting visitors (status)',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; vs A' (target >= 0.70): ${(m.rps('polls') / m.rps('noop-shaped')).toFixed(2)}; object calls per poll ${m
        .extra('callsPerPoll')
        .toFixed(4)} (target < 0.01)`,
  },
  {
    id: 'lane-polls',
    name: 'polls of presale-lane visitors (status)',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; vs the polls row: ${(m.rps('lane-polls') / m.rps('polls')).toFixed(2)}; object calls per poll ${m
        .extra('callsPerLanePoll')
        .toFixed(4)} (target < 0.01)`,
  },
  {
    id: 'organizer-key',
    name: 'organizer request with a named key (GET /_wr/admin/me)',
    vs: 'noop',
    note: () => 'ratio vs A; SHA-256 of the key per request, the directory asked once per isolate per 10 s',
  },
  {
    id: 'hold-direct',
    name: 'holds, Worker -> Inventory RPC only',
    vs: 'write-do',
    note: (m) => `ratio vs C; vs B: ${(m.rps('hold-direct') / m.rps('noop-do')).toFixed(2)}`,
  },
  {
    id: 'holds',
    name: 'holds end to end (gateway -> Inventory)',
    vs: 'write-do',
    target: 0.8,
    note: (m) =>
      `ratio vs C; vs B: ${(m.rps('holds') / m.rps('noop-do')).toFixed(2)}; vs the RPC alone: ${(m.rps('holds') / m.rps('hold-direct')).toFixed(2)}; WaitingRoom calls per hold ${m
        .extra('roomCallsPerHold')
        .toFixed(3)}; mean batch ${m.extra('holdsPerBatch').toFixed(1)} holds per Inventory call`,
  },
  {
    id: 'channel-holds',
    name: 'channel holds end to end (signed, allocated)',
    vs: 'write-do',
    note: (m) => `ratio vs C; vs the online hold row: ${(m.rps('channel-holds') / m.rps('holds')).toFixed(2)}`,
  },
  {
    id: 'holds-stub',
    name: 'holds, gateway only (Inventory stores nothing)',
    vs: 'noop-do',
    note: (m) => {
      const gateway = usPer(m.rps('holds-stub')) - usPer(m.rps('noop-do'));
      const inventory = usPer(m.rps('hold-direct'));
      // A difference of two rows' times over a third's: when each moves 10 % with the machine, the
      // share moves by half of itself, so each repetition's own share (its three rows minutes
      // apart at most) is printed as a range beside the medians'.
      const [stub, noop, direct] = [m.perRep('holds-stub'), m.perRep('noop-do'), m.perRep('hold-direct')];
      const shares = stub.map((s, k) => ((usPer(s) - usPer(noop[k]!)) / usPer(direct[k]!)) * 100);
      const range = shares.length > 1 ? ` (repetitions ${Math.min(...shares).toFixed(0)}-${Math.max(...shares).toFixed(0)} %)` : '';
      return `ratio vs B; gateway share ${gateway.toFixed(0)} us per hold = ${((gateway / inventory) * 100).toFixed(0)} % of the Inventory round trip${range} (target <= 20 %)`;
    },
  },
  {
    id: 'seat-map',
    name: 'seat map deltas, 1,000 concurrent readers',
    vs: 'noop',
    note: () => 'ratio vs A (edge-cached snapshot and deltas)',
  },
  { id: 'in-object', name: 'holds inside the object (no network)', vs: 'noop-do', note: () => 'ratio vs B' },
  {
    id: 'in-object-batch',
    name: `holds inside the object, ${IN_OBJECT_BATCH} per holdMany`,
    vs: 'in-object',
    note: (m) => `ratio vs one hold per call; vs B: ${(m.rps('in-object-batch') / m.rps('noop-do')).toFixed(2)}`,
  },
  {
    id: 'holds-sec1',
    name: 'holds end to end, 1 section + account ledger',
    vs: 'holds',
    note: (m) =>
      `ratio vs 1 Inventory without sections (the ledger's reserve per hold); vs C: ${(m.rps('holds-sec1') / m.rps('write-do')).toFixed(2)}`,
  },
  {
    id: 'holds-secN',
    name: `holds end to end, ${SECTIONS} section Inventories`,
    vs: 'holds',
    note: (m) =>
      `ratio vs 1 Inventory; vs 1 section: ${(m.rps('holds-secN') / m.rps('holds-sec1')).toFixed(2)}; ${(m.rps('holds-secN') / SECTIONS).toFixed(0)} holds/s per section object, 0 oversold`,
  },
];
