// The health reporter: measures the origin's own requests over a sliding window and posts signed
// health reports to the gateway every few seconds, also when idle, so the release rate follows them.
import type { FetchLike } from './admission.ts';
import { ActiveVisitors, DEFAULT_MAX_IN_FLIGHT_MS, DEFAULT_WINDOW_MS, LatencyWindow, RunningRequests } from './latency-window.ts';
import { signOriginRequest } from './protocol.ts';

/**
 * Body of `POST /_wr/origin/events/{id}/health` (docs/reference/api.md). Latencies ms, errorRate 0..1. The
 * latencies are of the requests completed in the window plus the requests still running that are
 * at least as old as the completed ones' p99, counted with their age so far (a lower bound):
 * stuck requests raise the p99 before they end.
 */
export interface HealthReport {
  p50LatencyMs: number;
  p99LatencyMs: number;
  /** Failures among the requests completed in the window. */
  errorRate: number;
  activeBuyers: number;
  windowSeconds: number;
  /**
   * Samples of the window: requests completed in it plus `inFlight` (the gateway raises the rate
   * only on reports of at least 8 completed: `sampleCount - inFlight`).
   */
  sampleCount: number;
  /**
   * Of `sampleCount`, requests still running at report time, counted with their age so far; sent
   * only when above 0 (a report without it is exactly as before; gateways older than the field
   * refuse it, docs/reference/origin-contract.md).
   */
  inFlight?: number;
  capacityHint?: number;
}

/**
 * One request from its start (`HealthReporter.begin`): counted as running in the reports until
 * `end` records its latency, or `discard` forgets it. Either is done once; later calls do nothing.
 */
export interface InFlightRequest {
  /** The request ended: records its time since `begin` once; `ok` false for a 5xx or an exception. */
  end(ok: boolean): void;
  /** The request is abandoned without an answer that says anything about the origin: not recorded. */
  discard(): void;
}

/**
 * What one post of a report came to: `accepted` (204), `refused` (4xx: the gateway's code, e.g.
 * `SIGNATURE_INVALID`, `EVENT_NOT_FOUND`, `STALE_REPORT`), or `no_answer` (timeout, network, 5xx).
 */
export type ReportOutcome =
  | { kind: 'accepted'; report: HealthReport }
  | { kind: 'refused'; status: number; code: string; report: HealthReport }
  | { kind: 'no_answer'; report: HealthReport };

/** Default interval between reports, ms (the gateway counts a report older than 10 s as silence). */
export const DEFAULT_REPORT_INTERVAL_MS = 2_000;
/** Default timeout of one report post, ms. */
export const DEFAULT_REPORT_TIMEOUT_MS = 3_000;

/** Options of `HealthReporter`. */
export interface HealthReporterOptions {
  /** The gateway's base URL. */
  gatewayUrl: string | URL;
  /** The event this origin serves (one reporter per event). */
  eventId: string;
  /** The gateway's ORIGIN_HMAC_SECRET. */
  secret: string;
  /** Interval of `start()`'s reports, ms (default 2,000; 500-9,000, under the gateway's 10 s staleness). */
  intervalMs?: number;
  /** Window the percentiles and error rate cover, ms (default 10,000). */
  windowMs?: number;
  /**
   * A request still running longer than this (ms) stops counting in the reports (a handle from
   * `begin()` never ended must not hold the p99 up for good); default 120,000, 1,000-600,000.
   */
  maxInFlightMs?: number;
  /** Timeout of one post, ms (default 3,000). */
  timeoutMs?: number;
  /** How reports are sent (default global `fetch`). */
  fetch?: FetchLike;
  /** Clock, epoch ms (default Date.now): the window's time and the signatures' timestamps. */
  clock?: () => number;
  /**
   * Timer for latencies, ms (default `performance.now`, monotonic and sub-millisecond; with a
   * custom `clock` and no timer, the clock). In a Worker it advances only across I/O, which is
   * what an origin's latency is made of there.
   */
  timer?: () => number;
  /** Buyers active now; default: distinct visitors passed to `seen()` in the last 60 s. */
  activeBuyers?: () => number;
  /** How many buyers the origin believes it can serve at once, if it knows (the controller's capacity hint). */
  capacityHint?: () => number | undefined;
  /** Called with each outcome of `start()`'s reports (default: a one-line warning when not accepted). */
  onReport?: (outcome: ReportOutcome) => void;
}

const EVENT_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * Measures requests (`record`, or the middlewares in `./hono.ts` and `./node.ts`) and reports the
 * window's p50/p99 latency, error rate and active buyers to the gateway, signed like every origin
 * API call. `start()` reports every `intervalMs` until `stop()` (in a Worker, call `report()` from
 * an alarm or a cron instead: there are no timers outside requests). An idle origin keeps
 * reporting (zero latency, no errors): silence would make the gateway hold the rate at its minimum.
 */
export class HealthReporter {
  readonly eventId: string;
  readonly intervalMs: number;
  private readonly window: LatencyWindow;
  private readonly running: RunningRequests;
  private readonly buyers = new ActiveVisitors();
  private readonly url: URL;
  private readonly path: string;
  private readonly secret: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: FetchLike;
  private readonly opts: HealthReporterOptions;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private sending: Promise<ReportOutcome> | null = null;
  /** Clock, epoch ms. */
  readonly clock: () => number;
  /** Latency timer, ms: `begin()` reads it at a request's start and end, `snapshot()` for the ages of running ones. */
  readonly timer: () => number;

  /** @throws TypeError naming the option when one is missing or out of range (nothing starts) */
  constructor(opts: HealthReporterOptions) {
    if (!EVENT_ID.test(opts?.eventId ?? '')) throw new TypeError('eventId must be a gateway event id (a-z, 0-9, -; up to 64)');
    if (typeof opts.secret !== 'string' || !opts.secret) throw new TypeError('secret must be the non-empty ORIGIN_HMAC_SECRET');
    const base = new URL(opts.gatewayUrl);
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError('gatewayUrl must be http(s)');
    const intervalMs = opts.intervalMs ?? DEFAULT_REPORT_INTERVAL_MS;
    if (!Number.isInteger(intervalMs) || intervalMs < 500 || intervalMs > 9_000) throw new TypeError('intervalMs must be 500-9000');
    const timeoutMs = opts.timeoutMs ?? DEFAULT_REPORT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 30_000) throw new TypeError('timeoutMs must be 100-30000');
    this.window = new LatencyWindow({ windowMs: opts.windowMs ?? DEFAULT_WINDOW_MS });
    this.running = new RunningRequests({ maxInFlightMs: opts.maxInFlightMs ?? DEFAULT_MAX_IN_FLIGHT_MS });
    this.eventId = opts.eventId;
    this.intervalMs = intervalMs;
    this.timeoutMs = timeoutMs;
    this.path = `/_wr/origin/events/${opts.eventId}/health`;
    this.url = new URL(this.path, base);
    this.secret = opts.secret;
    this.fetchFn = opts.fetch ?? ((r) => fetch(r));
    this.clock = opts.clock ?? Date.now;
    this.timer = opts.timer ?? opts.clock ?? (() => performance.now());
    this.opts = opts;
  }

  /**
   * Records one request the origin served: it took `latencyMs` and `ok` is false for a failure
   * (a 5xx answer or an exception; 4xx are the client's and count as ok). A request recorded only
   * here counts once it ended; `begin()` also counts it while it runs.
   */
  record(latencyMs: number, ok: boolean): void {
    this.window.record(this.clock(), latencyMs, ok);
  }

  /**
   * Starts the clock of one request (the middlewares and `measure()` do): until it ends, reports
   * count it as running (with its age so far once that reaches the completed requests' p99), and
   * `end(ok)` then records its real time once, as `record` would. A request is never counted
   * both running and completed in one report.
   */
  begin(): InFlightRequest {
    const started = this.timer();
    const id = this.running.begin(started);
    let open = true;
    return {
      end: (ok) => {
        if (!open) return;
        open = false;
        this.running.end(id);
        this.record(this.timer() - started, ok);
      },
      discard: () => {
        if (!open) return;
        open = false;
        this.running.end(id);
      },
    };
  }

  /** Marks a visitor (the admission's `visitorId`) as an active buyer for the next 60 s. */
  seen(visitorId: string): void {
    this.buyers.touch(visitorId, this.clock());
  }

  /**
   * Runs `fn` and records how long it took; a throw counts as a failure (and is re-thrown).
   * @param isError tells a failure from the result (default: none is)
   */
  async measure<T>(fn: () => Promise<T> | T, isError: (result: T) => boolean = () => false): Promise<T> {
    const request = this.begin();
    try {
      const result = await fn();
      request.end(!isError(result));
      return result;
    } catch (err) {
      request.end(false);
      throw err;
    }
  }

  /**
   * The report for the window ending now (what `report()` would send). Latencies are rounded up
   * to whole ms once anything was measured: the gateway reads a p99 under 1 ms as "nothing
   * measured" (an idle window, never a reason to raise the rate), so a fast origin must not look idle.
   * `sampleCount` says how many requests the window holds: the gateway grows on a report only with
   * at least 8 completed (the p99 of fewer is their maximum, and an idle origin's few requests are
   * not load). Requests still running (`begin()`) at least as old as the completed requests' p99
   * count with their age so far (`inFlight` of them; `LatencyWindow.stats`): 200 requests stuck
   * for 12 s with none completed read p99 12,000 ms over 200 samples, not "nothing measured".
   */
  snapshot(): HealthReport {
    const now = this.clock();
    const s = this.window.stats(now, this.running.ages(this.timer()));
    const hint = this.opts.capacityHint?.();
    const ms = (v: number) => (s.count === 0 ? 0 : Math.max(1, Math.ceil(v)));
    return {
      p50LatencyMs: ms(s.p50LatencyMs),
      p99LatencyMs: ms(s.p99LatencyMs),
      errorRate: s.errorRate,
      activeBuyers: this.opts.activeBuyers ? this.opts.activeBuyers() : this.buyers.count(now),
      windowSeconds: this.window.windowMs / 1000,
      sampleCount: s.count,
      ...(s.inFlight > 0 ? { inFlight: s.inFlight } : {}),
      ...(hint !== undefined && Number.isInteger(hint) && hint >= 0 ? { capacityHint: hint } : {}),
    };
  }

  /**
   * Signs and posts one report now. Never throws: the outcome says what happened. Two calls at
   * once share one post (a report signed later would make the earlier one STALE_REPORT).
   */
  report(): Promise<ReportOutcome> {
    this.sending ??= this.post().finally(() => (this.sending = null));
    return this.sending;
  }

  /** Reports now and then every `intervalMs` until `stop()`. The timer does not keep a Node process alive. Idempotent. */
  start(): this {
    if (this.ticker) return this;
    const tick = () => void this.report().then(this.opts.onReport ?? warnUnlessAccepted);
    tick();
    this.ticker = setInterval(tick, this.intervalMs);
    (this.ticker as { unref?: () => void }).unref?.();
    return this;
  }

  /** Stops `start()`'s reports. */
  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }

  private async post(): Promise<ReportOutcome> {
    const report = this.snapshot();
    const body = JSON.stringify(report);
    try {
      const headers = {
        'content-type': 'application/json',
        ...(await signOriginRequest(this.secret, 'POST', this.path, body, this.clock())),
      };
      const res = await this.fetchFn(new Request(this.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.timeoutMs) }));
      const data = (await res.json().catch(() => ({}))) as { code?: unknown };
      if (res.status >= 200 && res.status < 300) return { kind: 'accepted', report };
      if (res.status >= 500) return { kind: 'no_answer', report };
      return { kind: 'refused', status: res.status, code: typeof data.code === 'string' ? data.code : String(res.status), report };
    } catch {
      return { kind: 'no_answer', report };
    }
  }
}

function warnUnlessAccepted(o: ReportOutcome): void {
  if (o.kind === 'refused') console.warn(`health report refused: ${o.status} ${o.code}`);
  else if (o.kind === 'no_answer') console.warn('health report got no answer from the gateway');
}
