// The simulated origin of crowd-sim.ts: the origin stub's capacity model (processor sharing with a
// knee and a cliff, origin-stub/load-model.ts) and the simulations' seeded random numbers.

/** The origin's capacity: service time alone (ms), requests served at once at that time, and how steeply latency rises past them. */
export interface OriginCapacity {
  baseLatencyMs: number;
  knee: number;
  /** Latency = base + steepness x (in service - knee)^2 past the knee (the stub's model: 1). */
  steepness: number;
}

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Latency of a request at `c` in service under `m`, ms (origin-stub/load-model simulatedLatencyMs at steepness 1). */
function capacityLatencyMs(c: number, m: OriginCapacity): number {
  const excess = Math.max(0, c - m.knee);
  return m.baseLatencyMs + m.steepness * excess * excess;
}

/**
 * Processor sharing as the stub's SharedServer (a virtual clock that advances at 1 / latency(c)
 * per ms; every request needs one unit of work, so they finish in arrival order), with steepness.
 */
export class Processor {
  private v = 0;
  readonly running: { id: number; doneAtV: number; atMs: number }[] = [];
  model: OriginCapacity;
  constructor(model: OriginCapacity) {
    this.model = model;
  }
  arrive(id: number, atMs: number) {
    this.running.push({ id, doneAtV: this.v + 1, atMs });
  }
  abandon(id: number): boolean {
    const i = this.running.findIndex((r) => r.id === id);
    if (i >= 0) this.running.splice(i, 1);
    return i >= 0;
  }
  /** Serves `dt` ms ending at `nowMs`; returns the requests done, with their finish times. */
  advance(dt: number, nowMs: number): { id: number; atMs: number; doneMs: number }[] {
    const done: { id: number; atMs: number; doneMs: number }[] = [];
    let left = dt;
    while (left > 0 && this.running.length > 0) {
      const speed = 1 / capacityLatencyMs(this.running.length, this.model);
      const head = this.running[0]!;
      const need = (head.doneAtV - this.v) / speed;
      if (need > left) {
        this.v += left * speed;
        break;
      }
      this.v = head.doneAtV;
      left -= need;
      while (this.running.length > 0 && this.running[0]!.doneAtV <= this.v + 1e-12) {
        const r = this.running.shift()!;
        done.push({ id: r.id, atMs: r.atMs, doneMs: nowMs - left });
      }
    }
    if (this.running.length === 0) this.v = 0;
    return done;
  }
}
