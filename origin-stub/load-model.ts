// The stub's capacity model and latency statistics: pure functions and the processor-sharing server
// the Shop object feeds (its timers and requests stay in shop.ts; everything here takes `nowMs`).

/**
 * Simulated service time of one request, in ms: `baseMs` while at most `knee` requests run at
 * once, then growing with the square of the excess (a queueing server past saturation). This is
 * the latency at a constant concurrency; `SharedServer` serves requests so that it holds.
 */
export function simulatedLatencyMs(concurrent: number, baseMs: number, knee: number): number {
  const excess = Math.max(0, concurrent - knee);
  return baseMs + excess * excess;
}

/**
 * Simulated error rate (0..1): none up to twice the knee, then rising linearly to 1 at four times
 * the knee (an origin that starts dropping requests once its queues overflow).
 */
export function simulatedErrorRate(concurrent: number, knee: number): number {
  return Math.min(1, Math.max(0, (concurrent - 2 * knee) / (2 * knee)));
}

/**
 * The stub's capacity: `baseLatencyMs` (ms, the service time of a request alone) and
 * `capacityKnee` (requests in service at once before each slows down). Set by the stub's
 * BASE_LATENCY_MS and CAPACITY_KNEE, or by the operator's `PUT /admin/events/{id}/load`.
 */
export interface CapacityModel {
  baseLatencyMs: number;
  capacityKnee: number;
}

/** The work of one request under `model`: its base latency, at least 1 ms (ms of service alone). */
export function requestWorkMs(model: CapacityModel): number {
  return Math.max(1, model.baseLatencyMs);
}

/**
 * How fast each of `concurrent` requests in service progresses, in shares of its work per real ms:
 * 1 / simulatedLatencyMs (at least 1 ms), so that at a constant concurrency a request's latency is
 * exactly `simulatedLatencyMs` (1 ms when that is under 1 ms). Equivalently, base / simulatedLatencyMs
 * ms of its `requestWorkMs` per ms.
 */
function serviceSpeed(concurrent: number, model: CapacityModel): number {
  return 1 / Math.max(1, simulatedLatencyMs(concurrent, model.baseLatencyMs, model.capacityKnee));
}

/** A request the server finished: its key and when it finished, ms. */
export interface Finished<K> {
  key: K;
  atMs: number;
}

/** Slack of a completion's time, ms (a millionth of a ms): far below any timer, far above V's rounding. */
const FINISH_SLACK_MS = 1e-6;

/**
 * A processor-sharing server with the capacity model's steady state: while c requests are in
 * service each progresses at `serviceSpeed(c)`, so when c changes (an arrival, a completion, a
 * client that gave up) every running request speeds up or slows down from then on, as a real
 * server's do. (The stub used to fix each request's sleep at its arrival: a request arriving at
 * 200 in flight slept 40-70 s, even after the load had dropped to 10.) Kept as a virtual clock V
 * that advances at `serviceSpeed(c)` per real ms: a request arriving at V0 is done when V reaches
 * V0 + 1 (its whole work), so requests finish in arrival order. Pure: the caller passes the time,
 * keeps one timer for `nextFinishAtMs()` and re-plans it after every call.
 *
 * Shape: `arrive(key, nowMs)`, `abandon(key, nowMs)`, `setModel(model, nowMs)` change the set;
 * `takeFinished(nowMs)` hands out the requests done by then, in the order they finished. A time before
 * the last one seen counts as the last one (the clock never runs backwards here).
 */
export class SharedServer<K> {
  private model: CapacityModel;
  /** Real time (ms) V was last advanced to. */
  private atMs: number;
  /** The virtual clock: the share of its work each request in service got since the server was last idle. */
  private virtual = 0;
  /** Requests in service in arrival order, each with the V at which it is done. */
  private readonly running: { key: K; doneAtV: number }[] = [];
  /** Done and not yet taken, in the order they finished. */
  private readonly done: Finished<K>[] = [];

  constructor(model: CapacityModel, nowMs: number) {
    this.model = model;
    this.atMs = nowMs;
  }

  /** Requests in service (not finished, not abandoned). */
  get inService(): number {
    return this.running.length;
  }

  /** A request arrives at `nowMs`. */
  arrive(key: K, nowMs: number): void {
    this.advance(nowMs);
    this.running.push({ key, doneAtV: this.virtual + 1 });
  }

  /** A request leaves unfinished at `nowMs` (its client gave up); the others speed up from then. False when it is not in service. */
  abandon(key: K, nowMs: number): boolean {
    this.advance(nowMs);
    const i = this.running.findIndex((r) => r.key === key);
    if (i < 0) return false;
    this.running.splice(i, 1);
    return true;
  }

  /**
   * A new capacity model from `nowMs` (the operator's switch): the time before it is served under
   * the old one, and the rest of every request in service under the new one (a 60 s base latency
   * set and then reset ends the requests it slowed at once).
   */
  setModel(model: CapacityModel, nowMs: number): void {
    this.advance(nowMs);
    this.model = model;
  }

  /** The requests done by `nowMs`, removed, in the order they finished (a call after a late timer gets their own times). */
  takeFinished(nowMs: number): Finished<K>[] {
    this.advance(nowMs);
    return this.done.splice(0);
  }

  /** When the next request finishes if nothing arrives or leaves, ms (real time), or null when none is in service. */
  nextFinishAtMs(): number | null {
    const head = this.running[0];
    if (!head) return null;
    return this.atMs + (head.doneAtV - this.virtual) / serviceSpeed(this.running.length, this.model);
  }

  /**
   * Serves up to `nowMs`, one completion at a time (each changes the speed of the rest). A request
   * due within FINISH_SLACK_MS of `nowMs` is done: V is a sum of many small steps, and its rounding
   * must not leave a request for the next call.
   */
  private advance(nowMs: number): void {
    if (nowMs <= this.atMs) return;
    for (let next = this.nextFinishAtMs(); next !== null && next <= nowMs + FINISH_SLACK_MS; next = this.nextFinishAtMs()) {
      const doneAtV = this.running[0]!.doneAtV;
      this.virtual = doneAtV;
      this.atMs = Math.min(nowMs, Math.max(this.atMs, next));
      while (this.running.length > 0 && this.running[0]!.doneAtV <= doneAtV)
        this.done.push({ key: this.running.shift()!.key, atMs: this.atMs });
    }
    if (this.running.length === 0) this.virtual = 0;
    else this.virtual += (nowMs - this.atMs) * serviceSpeed(this.running.length, this.model);
    this.atMs = nowMs;
  }
}
