// Hono middleware of the origin SDK: health measurement and admission checks (`@waiting-room/origin-sdk/hono`).
import type { Context, MiddlewareHandler } from 'hono';
import { AdmissionError, verifyAdmission, type Admission, type AdmissionOptions } from './admission.ts';
import type { HealthReporter } from './health.ts';

/** Variables set by `admissionMiddleware`. */
export interface AdmissionVariables {
  /** The verified admission of this request. */
  admission: Admission;
}

/**
 * Measures every request it wraps into `reporter`: its time to the response, and a failure when
 * the answer is 5xx or a handler threw (Hono turns that into a 500 and sets `c.error`). While it
 * runs the request counts in the reports with its age so far (`HealthReporter.begin`).
 */
export function healthMiddleware(reporter: HealthReporter): MiddlewareHandler {
  return async function healthMiddleware(c, next) {
    const request = reporter.begin();
    try {
      await next();
    } finally {
      request.end(!c.error && c.res.status < 500);
    }
  };
}

/** Options of `admissionMiddleware`: those of `verifyAdmission`, the event id per request if it varies. */
export type AdmissionMiddlewareOptions = Omit<AdmissionOptions, 'eventId' | 'nowMs'> & {
  /** The event of this request: fixed, or read from the request (e.g. `(c) => c.req.param('eventId')`). */
  eventId: string | ((c: Context) => string);
  /** Counts each admitted visitor as an active buyer of this reporter. */
  reporter?: HealthReporter;
};

/**
 * Lets only admitted visitors through: verifies the `x-admission-token` the gateway forwards
 * (`verifyAdmission`), sets `c.var.admission`, and otherwise answers `{ code, detail }` with 401
 * (`ADMISSION_MISSING` / `ADMISSION_EXPIRED` / `ADMISSION_INVALID`) or 503 (`JWKS_UNAVAILABLE`)
 * without calling the handler.
 */
export function admissionMiddleware(options: AdmissionMiddlewareOptions): MiddlewareHandler<{ Variables: AdmissionVariables }> {
  const { eventId, reporter, ...rest } = options;
  return async function admissionMiddleware(c, next) {
    let admission: Admission;
    try {
      admission = await verifyAdmission(c.req.raw, { ...rest, eventId: typeof eventId === 'function' ? eventId(c) : eventId });
    } catch (err) {
      if (!(err instanceof AdmissionError)) throw err;
      return c.json({ code: err.code, detail: err.message }, err.status, { 'cache-control': 'no-store' });
    }
    reporter?.seen(admission.visitorId);
    c.set('admission', admission);
    await next();
  };
}
