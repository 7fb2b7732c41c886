// The gateway's side of the simulated path (crowd-sim.ts): the edge's limit on requests in flight
// to the origin (src/lib/origin-limit.ts) with the requests waiting over it, and the edge waits the
// event's room is sent (src/lib/edge-wait.ts). Times in ms of the simulation's clock unless epoch.
import { EDGE_WAIT_WINDOW_MS } from '../../durable-objects/waiting-room/tick-plan';
import { ConcurrencyLimit, EdgeWaitTally } from '../../src/lib/origin-limit';

export class SimEdge {
  private readonly limit: ConcurrencyLimit | null;
  private readonly waiting: { id: number; sinceMs: number }[] = [];
  private readonly sentAt = new Map<number, number>();
  private readonly tally = new EdgeWaitTally();
  /** Edge-wait p99s as the room received them: [epoch ms, ms]. */
  private readonly signals: [number, number][] = [];
  private longest = 0;
  private readonly t0: number;
  private readonly arrive: (id: number, nowMs: number) => void;

  /**
   * @param on with the limit (off: every request goes straight to the origin)
   * @param t0 the simulation's epoch, ms
   * @param arrive puts a request in service at the origin
   */
  constructor(on: boolean, t0: number, arrive: (id: number, nowMs: number) => void) {
    this.limit = on ? new ConcurrencyLimit() : null;
    this.t0 = t0;
    this.arrive = arrive;
  }

  /** A request reaches the edge at `nowMs`: sent at once, or queued behind the limit; `upload` ones (checkout posts) skip it. */
  enter(id: number, nowMs: number, upload: boolean): void {
    if (upload) this.arrive(id, nowMs);
    else if (this.limit && (this.waiting.length > 0 || !this.limit.allows())) this.waiting.push({ id, sinceMs: nowMs });
    else this.send(id, nowMs, nowMs);
  }

  /** The gateway gives up on a request at `nowMs`: true when it was still waiting at the edge (it never reached the origin). */
  giveUp(id: number, nowMs: number): boolean {
    const i = this.waiting.findIndex((w) => w.id === id);
    if (i < 0) return false;
    this.waited(nowMs - this.waiting[i]!.sinceMs, nowMs);
    this.waiting.splice(i, 1);
    return true;
  }

  /** A request sent to the origin ended (answered or abandoned) at `nowMs`: its place goes to the next waiting ones. */
  ended(id: number, nowMs: number): void {
    const sent = this.sentAt.get(id);
    if (!this.limit || sent === undefined) return;
    this.sentAt.delete(id);
    this.limit.ended(nowMs - sent, this.t0 + nowMs);
    while (this.waiting.length > 0 && this.limit.allows()) {
      const w = this.waiting.shift()!;
      this.send(w.id, w.sinceMs, nowMs);
    }
  }

  /** The worst edge-wait p99 the room holds at `nowMs` (the last EDGE_WAIT_WINDOW_MS), or null. */
  edgeWaitP99Ms(nowMs: number): number | null {
    const recent = this.signals.filter(([at]) => at >= this.t0 + nowMs - EDGE_WAIT_WINDOW_MS).map(([, ms]) => ms);
    return recent.length > 0 ? Math.max(...recent) : null;
  }

  /** The longest wait of the requests sent since the last call, ms. */
  takeLongestWait(): number {
    const longest = this.longest;
    this.longest = 0;
    return longest;
  }

  private send(id: number, sinceMs: number, nowMs: number): void {
    this.arrive(id, nowMs);
    this.longest = Math.max(this.longest, nowMs - sinceMs);
    if (!this.limit) return;
    this.waited(nowMs - sinceMs, nowMs);
    this.limit.started(this.t0 + nowMs);
    this.sentAt.set(id, nowMs);
  }

  private waited(ms: number, nowMs: number): void {
    const signal = this.tally.record(ms, this.t0 + nowMs);
    if (signal) this.signals.push([this.t0 + nowMs, signal.p99Ms]);
  }
}
