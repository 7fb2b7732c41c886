// The gateway's limit on admitted visitors' requests in flight to the origin, per isolate. The
// release law bounds how many visitors are admitted; this bounds how many of their requests the
// origin serves at once. An origin past its knee serves less the more it is given (requests in
// service share it, the backlog feeds itself), and a burst (every admitted visitor's next page at
// the same moment, after a pause of the machine or the network) takes it there at any number of
// admitted visitors. Requests over the limit wait here in arrival order, where waiting costs the
// origin nothing, and go in as earlier ones are answered.
//
// The limit is learned from the answers' round trips as Netflix's Gradient2 limiter does
// (concurrency-limits, Gradient2Limit: limit x min(1, tolerance x long RTT / short RTT) + queue
// allowance, smoothed), with the long RTT read as the windowed minimum of TCP Vegas and BBR's
// min_rtt (Brakmo and Peterson 1995; Cardwell et al. 2016): what the origin answers in with no
// queue. Pure apart from the clock argument; OriginGate below holds the waiting requests, and
// EdgeWaitTally counts how long they waited for the release law (edge-wait.ts sends it).

import type { EdgeWaitSignal } from '../../contracts/room-answers';
import { quantile } from '../../contracts/stats';

/** The limit before any answer, requests in flight (Gradient2's initial limit). */
export const INITIAL_ORIGIN_LIMIT = 20;
/** The limit never falls under this, nor rises over the other. */
export const MIN_ORIGIN_LIMIT = 4;
export const MAX_ORIGIN_LIMIT = 10_000;
/** Round trips up to this many times the minimum are no queue (Gradient2's rttTolerance, 1.5 by default). */
export const RTT_TOLERANCE = 1.5;
/** The limit moves at most to this share of its new value per window (Gradient2's smoothing, 0.2). */
const SMOOTHING = 0.2;
/** Requests the limit may queue at the origin beyond the gradient (Gradient2's queueSize, 4). */
const QUEUE_ALLOWANCE = 4;
/** The gradient never cuts the limit by more than half in one window (Gradient2's floor of the gradient). */
const MIN_GRADIENT = 0.5;
/** A window of answers closes after this long, ms, with at least MIN_WINDOW_SAMPLES answers. */
export const WINDOW_MS = 500;
const MIN_WINDOW_SAMPLES = 10;
/** The minimum round trip is taken over the windows of this long, ms. */
const MIN_RTT_WINDOW_MS = 60_000;

/** The learned limit of requests in flight to the origin, and the answers' round trips that move it. */
export class ConcurrencyLimit {
  /** The limit, requests in flight (fractional; `allows` compares with its floor). */
  limit = INITIAL_ORIGIN_LIMIT;
  inFlight = 0;
  private window = { startMs: -1, count: 0, sumMs: 0, peak: 0 };
  /** Averages of recent windows, oldest first: [closed at, ms]. */
  private readonly averages: [number, number][] = [];

  /** Whether one more request may go to the origin now. */
  allows(): boolean {
    return this.inFlight < Math.max(MIN_ORIGIN_LIMIT, Math.floor(this.limit));
  }

  /** Counts a request sent to the origin. */
  started(nowMs: number): void {
    this.inFlight++;
    if (this.window.startMs < 0) this.window.startMs = nowMs;
    this.window.peak = Math.max(this.window.peak, this.inFlight);
  }

  /**
   * Counts the answer (or the failure) of a request sent to the origin, `rttMs` after it was sent,
   * and moves the limit when a window closes: the gradient tolerance x minimum / average (at most 1,
   * at least MIN_GRADIENT), plus the queue allowance; only down while the window never used half
   * the limit (Gradient2: an application-limited window says nothing about the origin).
   */
  ended(rttMs: number, nowMs: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (!Number.isFinite(rttMs)) return;
    const w = this.window;
    if (w.startMs < 0) w.startMs = nowMs;
    w.count++;
    w.sumMs += Math.max(0, rttMs);
    if (w.count < MIN_WINDOW_SAMPLES || nowMs - w.startMs < WINDOW_MS) return;
    const average = w.sumMs / w.count;
    this.averages.push([nowMs, average]);
    while (this.averages.length > 0 && this.averages[0]![0] < nowMs - MIN_RTT_WINDOW_MS) this.averages.shift();
    let min = average;
    for (const [, ms] of this.averages) min = Math.min(min, ms);
    const gradient = average <= 0 ? 1 : Math.max(MIN_GRADIENT, Math.min(1, (RTT_TOLERANCE * min) / average));
    let next = this.limit * gradient + QUEUE_ALLOWANCE;
    if (w.peak < this.limit / 2) next = Math.min(next, this.limit);
    this.limit = Math.min(MAX_ORIGIN_LIMIT, Math.max(MIN_ORIGIN_LIMIT, this.limit * (1 - SMOOTHING) + next * SMOOTHING));
    this.window = { startMs: nowMs, count: 0, sumMs: 0, peak: this.inFlight };
  }
}

/** A place in flight to the origin: call `done` once, when the answer's headers came or the request failed. */
export interface OriginSlot {
  done(): void;
}

/**
 * The place of a request the limit does not cover, `done` doing nothing: an upload, whose time to
 * headers is the visitor's and which would hold a place for as long as a slow visitor sends it.
 */
export const UNLIMITED: OriginSlot = { done: () => {} };

/**
 * A visitor has at most this many requests in flight to the origin through one isolate; more wait
 * (keeping their turn) even while the limit has room, so one visitor, or one script with one
 * admission, cannot take the places every other admitted visitor waits for. A browser opens about
 * six connections to a host (HTTP/1.1), so a page's own requests rarely meet it.
 */
export const MAX_PER_VISITOR = 6;

/** Who asks for a place, and who hears how long it waited. */
export interface GateAsk {
  /** The admitted visitor (admission claims' visitorId); none: no per-visitor cap. */
  visitorId?: string;
  /** Gets the time waited at the edge, ms, whether a place came or not (edge-wait.ts). */
  onWait?: (waitedMs: number) => void;
}

interface Waiter {
  visitorId: string | undefined;
  resolve: (slot: OriginSlot) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Requests in flight to the origin under a ConcurrencyLimit, the others waiting in arrival order
 * (a visitor at MAX_PER_VISITOR waits without blocking those behind it). One per isolate
 * (`originGate` below): each isolate learns its own share of the origin, as each client instance of
 * a Gradient2 limiter does.
 */
export class OriginGate {
  readonly limit = new ConcurrencyLimit();
  private readonly waiting: Waiter[] = [];
  /** Requests in flight per visitor (absent: none). */
  private readonly perVisitor = new Map<string, number>();
  private readonly now: () => number;

  /** @param now the clock, epoch ms (tests pass their own) */
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * A place to send one request: at once while the limit allows and the visitor is under its
   * cap with nobody waiting ahead who could go, else once earlier requests are answered; null when
   * `maxWaitMs` passes first (the request was never sent).
   */
  async enter(maxWaitMs: number, ask: GateAsk = {}): Promise<OriginSlot | null> {
    if (this.limit.allows() && this.mayGo(ask.visitorId) && !this.waiting.some((w) => this.mayGo(w.visitorId))) {
      ask.onWait?.(0);
      return this.slot(ask.visitorId);
    }
    const asked = this.now();
    const slot = await new Promise<OriginSlot | null>((resolve) => {
      const waiter: Waiter = {
        visitorId: ask.visitorId,
        resolve,
        timer: setTimeout(() => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          resolve(null);
        }, maxWaitMs),
      };
      this.waiting.push(waiter);
    });
    ask.onWait?.(this.now() - asked);
    return slot;
  }

  /** Requests waiting for a place now. */
  get queued(): number {
    return this.waiting.length;
  }

  private mayGo(visitorId: string | undefined): boolean {
    return visitorId === undefined || (this.perVisitor.get(visitorId) ?? 0) < MAX_PER_VISITOR;
  }

  private slot(visitorId: string | undefined): OriginSlot {
    const sentAt = this.now();
    this.limit.started(sentAt);
    if (visitorId !== undefined) this.perVisitor.set(visitorId, (this.perVisitor.get(visitorId) ?? 0) + 1);
    let open = true;
    return {
      done: () => {
        if (!open) return;
        open = false;
        const now = this.now();
        this.limit.ended(now - sentAt, now);
        if (visitorId !== undefined) {
          const n = (this.perVisitor.get(visitorId) ?? 1) - 1;
          if (n > 0) this.perVisitor.set(visitorId, n);
          else this.perVisitor.delete(visitorId);
        }
        this.wake();
      },
    };
  }

  /** Sends the oldest waiting requests whose visitors are under the cap, while the limit allows. */
  private wake(): void {
    for (let i = 0; i < this.waiting.length && this.limit.allows();) {
      const w = this.waiting[i]!;
      if (!this.mayGo(w.visitorId)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      clearTimeout(w.timer);
      w.resolve(this.slot(w.visitorId));
    }
  }
}

/** An isolate sends its waits to the WaitingRoom at most this often, ms (the origin SDK's report interval). */
export const EDGE_WAIT_FLUSH_MS = 2_000;
const MAX_SAMPLES = 2_000;

/** One event's waits in one isolate since the last signal. */
export class EdgeWaitTally {
  private since = -1;
  private waits: number[] = [];
  private waited = false;

  /**
   * Counts one admitted request's wait (ms) at `nowMs` (epoch ms). Returns the signal to send when
   * EDGE_WAIT_FLUSH_MS has passed since the interval began and some request waited, else null: an
   * isolate whose requests never wait says nothing and costs the room no call.
   */
  record(waitMs: number, nowMs: number): EdgeWaitSignal | null {
    if (this.since < 0) this.since = nowMs;
    if (this.waits.length < MAX_SAMPLES) this.waits.push(Math.max(0, waitMs));
    if (waitMs > 0) this.waited = true;
    if (nowMs - this.since < EDGE_WAIT_FLUSH_MS) return null;
    const signal = this.waited ? { p99Ms: quantile(this.waits, 0.99), requests: this.waits.length } : null;
    this.since = nowMs;
    this.waits = [];
    this.waited = false;
    return signal;
  }
}

/** This isolate's limit on admitted visitors' requests in flight to the origin (proxy.ts proxyToOrigin). */
export const originGate = new OriginGate();
