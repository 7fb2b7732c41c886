// What the bench Worker (bench-worker.ts) and its Node drivers (gateway.ts, profile.ts) agree on.

/**
 * A request carrying this header reaches the real gateway with the stub objects that store
 * nothing, like `/__bench/stub/...` but without that route's Request copy (which streams a hold's
 * body again), so the gateway-only hold row differs from the end-to-end row by the object alone.
 */
export const STUB_HEADER = 'x-bench-stub';
