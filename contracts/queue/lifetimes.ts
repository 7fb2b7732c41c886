// Token and session lifetimes between milliseconds and seconds: a JWT `exp` and a cookie `Max-Age`
// are whole seconds, sessions end at an exact millisecond; these rules keep them in step.

/**
 * The shortest admission worth handing out, ms. An admission with less left is not handed out
 * (again): the visitor goes to the back of the line instead of getting a token that dies on the
 * next page load. Ten seconds covers a page load and a seat hold with the gateway's clock
 * tolerance (CLOCK_TOLERANCE_S = 5) to spare; every admission TTL is at least 30 s
 * (contracts/event-config.ts admissionTtlSeconds), so a fresh admission always qualifies.
 */
export const MIN_USEFUL_ADMISSION_MS = 10_000;

/**
 * A JWT NumericDate (RFC 7519 section 2: seconds since the epoch) for an instant in epoch ms: the
 * last whole second at or before it, so a token never outlives what it stands for.
 */
export function numericDate(ms: number): number {
  return Math.floor(ms / 1000);
}

/**
 * When an admission that starts at `nowMs` with a TTL of `ttlMs` ends, epoch ms: on the whole
 * second at or before `nowMs + ttlMs`, so its token's `exp` (whole seconds) names the exact end
 * of the session. (It was rounded the other way: the session outlived its token by up to 999 ms.)
 */
export function admissionEndsAtMs(nowMs: number, ttlMs: number): number {
  return numericDate(nowMs + ttlMs) * 1000;
}

/** Whether an admission ending at `endsAtMs` is still worth handing out at `nowMs` (MIN_USEFUL_ADMISSION_MS left). */
export function worthHandingOut(nowMs: number, endsAtMs: number): boolean {
  return endsAtMs - nowMs >= MIN_USEFUL_ADMISSION_MS;
}

/**
 * The cookie `Max-Age` (RFC 6265 section 5.2.2: whole seconds) for a token whose `exp` is
 * `expS`: the whole seconds left from `nowMs`, rounded down, so the cookie never holds an expired
 * token. Never negative.
 */
export function cookieMaxAgeS(nowMs: number, expS: number): number {
  return Math.max(0, Math.floor((expS * 1000 - nowMs) / 1000));
}
