// The Shop's health reports through the origin SDK: its own request timings, posted signed to the
// gateway from the object's alarm (a Worker has no timers between requests).
import { HealthReporter } from '../origin-sdk/src/index';

/** Health is reported over this trailing window, ms. */
const HEALTH_WINDOW_MS = 10_000;
/** The stub stops reporting after this long without traffic, ms. */
const IDLE_STOP_MS = 10 * 60_000;

/** The reporter of one event's Shop: samples in a sliding window, reports signed with ORIGIN_HMAC_SECRET over the GATEWAY binding. */
export function shopReporter(env: OriginEnv, eventId: string): HealthReporter {
  const interval = Number(env.HEALTH_REPORT_INTERVAL_MS);
  return new HealthReporter({
    gatewayUrl: 'https://gateway',
    eventId,
    secret: env.ORIGIN_HMAC_SECRET,
    fetch: (r) => env.GATEWAY.fetch(r),
    windowMs: HEALTH_WINDOW_MS,
    // Latencies and the ages of requests in service on the object's clock, as its load model.
    timer: () => Date.now(),
    // The object's alarm sends the reports (`report()`); `intervalMs` only has to be valid here.
    intervalMs: interval >= 500 && interval <= 9_000 ? interval : 2_000,
  });
}

/** Whether the stub keeps reporting: reports on while there was traffic in the last IDLE_STOP_MS. */
export function keepReporting(env: OriginEnv, lastTrafficAtMs: number, nowMs: number): boolean {
  return Number(env.HEALTH_REPORT_INTERVAL_MS) > 0 && nowMs - lastTrafficAtMs < IDLE_STOP_MS;
}
