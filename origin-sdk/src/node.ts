// Node `http` / Express-style middleware of the origin SDK (`@waiting-room/origin-sdk/node`).
// Structural types only: no import of node:http, so the package has no runtime dependency on Node.
import type { HealthReporter } from './health.ts';

/** The part of a Node `ServerResponse` the reporter needs. */
export interface NodeResponseLike {
  statusCode: number;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

/**
 * Express/Connect-style middleware `(req, res, next)` that measures each response into `reporter`:
 * from the call to `finish` (the last byte handed to the OS), a failure when the status is 5xx;
 * until then it counts in the reports with its age so far (`HealthReporter.begin`). A request the
 * client abandoned before the answer (`close` without `finish`) is then not counted: it says
 * nothing about the origin.
 */
export function nodeHealth(reporter: HealthReporter): (req: unknown, res: NodeResponseLike, next?: (err?: unknown) => void) => void {
  return function nodeHealth(_req, res, next) {
    const request = reporter.begin();
    res.once('finish', () => request.end(res.statusCode < 500));
    // After `finish`, `close` finds the request ended and does nothing.
    res.once('close', () => request.discard());
    next?.();
  };
}

/**
 * Wraps a plain `node:http` handler: `createServer(withHealth(reporter, handler))`. A handler that
 * throws (or whose promise rejects) counts as a failure and gets a 500 if nothing was sent yet.
 */
export function withHealth<Req, Res extends NodeResponseLike & { headersSent?: boolean; end(chunk?: string): unknown }>(
  reporter: HealthReporter,
  handler: (req: Req, res: Res) => unknown,
): (req: Req, res: Res) => void {
  const measure = nodeHealth(reporter);
  return (req, res) => {
    measure(req, res);
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((err: unknown) => {
        console.error('origin handler failed:', err instanceof Error ? err.message : err);
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end('internal error');
        }
      });
  };
}
