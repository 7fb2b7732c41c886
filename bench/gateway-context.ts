// What the gateway bench's parts share (bench/gateway.ts runs them): the load's length and crowd
// size, the venue sections, and the shapes of a scenario (what to load), a row (how to print it)
// and the medians a row's note reads. Also the WaitingRoom's own call count, which scenarios of
// both tables (bench/gateway-requests.ts, bench/gateway-holds.ts) divide by their requests.
import type { BenchGateway, Sample } from './harness.ts';

/** Seconds each scenario's load lasts (BENCH_SECONDS; 4 by default). */
export const DURATION_S = Number(process.env.BENCH_SECONDS) || 4;
/**
 * Holds each hold row sends per repetition (BENCH_HOLDS; 3,000 by default, about 4 s of the run of
 * record's end-to-end holds), the same holds every repetition. A fixed count rather than a fixed
 * time: the holds fill the hot seats, and most later ones are refused (no write), so in a fixed time
 * a faster repetition sent a cheaper mix than a slower one and the row's cost moved with its speed.
 */
export const HOLDS_PER_REP = Number(process.env.BENCH_HOLDS) || 3000;
/** Admitted or waiting visitors whose cookies a scenario's requests take round robin. */
export const VISITORS = 200;
/** Holds per `holdMany` call in the in-object batch row (about the bench's measured mean batch). */
export const IN_OBJECT_BATCH = 8;
/** Venue sections of the sectioned-hold row: the same 50,000 seats as SECTIONS Inventory objects. */
export const SECTIONS = 4;

/** What one repetition's scenarios share: the gateway, the repetition, and figures beyond req/s. */
export interface Rep {
  gw: BenchGateway;
  rep: number;
  /** Extra figures by name (e.g. object calls per poll), one per repetition; medians are printed. */
  extra: (name: string, value: number) => void;
  /** Free-form facts per repetition (answer codes), printed under the table. */
  fact: (name: string, text: string) => void;
}

/** One measured load per repetition. */
export interface Scenario {
  id: string;
  run: (r: Rep) => Promise<Sample>;
}

/** One printed line: the scenario's median req/s and latencies, as a ratio of `vs` (a scenario id). */
export interface Row {
  id: string;
  name: string;
  vs?: string;
  /** The ratio vs `vs` this row should reach; printed with met / missed. */
  target?: number;
  /** More to print, from the medians (ratios to other rows, extra figures). */
  note?: (m: Medians) => string;
}

/** The medians over the repetitions, by scenario id or extra figure name (NaN for what did not run). */
export interface Medians {
  /** Median req/s. */
  rps: (id: string) => number;
  /** Median workerd CPU per answer, us. */
  cpu: (id: string) => number;
  /** Req/s of each repetition, in order (empty for what did not run). */
  perRep: (id: string) => number[];
  extra: (name: string) => number;
}

/** Calls the event's WaitingRoom has served so far (its own count; the stats call is not counted). */
export async function roomRequests(r: Rep, event: string): Promise<number> {
  const stats = (await (await fetch(`${r.gw.base}/_wr/admin/events/${event}`, { headers: r.gw.admin })).json()) as {
    queue: { objectRequests: number };
  };
  return stats.queue.objectRequests;
}
