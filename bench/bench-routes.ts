// What the bench Worker (bench-worker.ts) and its Node drivers (gateway-holds.ts, profile.ts) agree on.

/**
 * A request carrying this header reaches the real gateway with the stub objects that store
 * nothing, like `/__bench/stub/...` but without that route's Request copy (which streams a hold's
 * body again), so the gateway-only hold row differs from the end-to-end row by the object alone.
 */
export const STUB_HEADER = 'x-bench-stub';

/** The admitted request's stages (bench/admitted-micro.ts): each does what the one before it does plus one step of the gateway. */
export const ADMITTED_STAGES = [
  'bare forward (F): the request to the origin Worker',
  '+ URL parse and room match',
  '+ admission read (cookies, cached tokens, session)',
  '+ a new request (headers copied) instead of the incoming',
  '+ the fields the origin gets (Via, X-Forwarded-*, keys)',
  '+ proxyToOrigin (field removal, origin timeout)',
  '+ the edge limit (a place in flight, the round trip)',
  '+ admittedAnswer (the answer the browser gets)',
  'whole request through the gateway (app.ts fast path)',
] as const;
