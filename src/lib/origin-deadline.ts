// The bound on the wait for an origin's answer, shared by every request the gateway forwards.
import { GatewayError } from './errors';

/** Retry-After sent with ORIGIN_UNAVAILABLE and ORIGIN_TIMEOUT, seconds (unless the origin named its own). */
export const ORIGIN_RETRY_AFTER_S = 10;

/** What originDeadline returns (see there). */
export interface OriginDeadline {
  body: ReadableStream | null;
  bodyDropped: boolean;
  passed: Promise<never>;
  clear: () => void;
}

/**
 * The bound on the origin's answer: `timeoutMs` of silence, counted while the request body is
 * sent (each chunk the origin reads restarts it: a slow upload is not a slow origin:
 * a 30 MB upload at 4 MB/s got 504 at 3 s) and then until the response headers arrive. A race
 * rather than `AbortSignal.timeout`, which would also cut a response body that streams past it;
 * the runtime cancels the unanswered subrequest once the gateway's response is sent.
 *
 * @returns the body to forward (the request's, through a pass-through stream that keeps its
 *   length; none for GET and HEAD, `bodyDropped` when one came), `passed` (rejects with
 *   GatewayError ORIGIN_TIMEOUT when the bound passes) and `clear`
 */
export function originDeadline(request: Request, timeoutMs: number): OriginDeadline {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let fire: () => void = () => {};
  const passed = new Promise<never>((_, reject) => {
    fire = () =>
      reject(
        new GatewayError('ORIGIN_TIMEOUT', {
          detail: `the site did not start answering within ${timeoutMs} ms`,
          retryAfterS: ORIGIN_RETRY_AFTER_S,
        }),
      );
  });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(fire, timeoutMs);
  };
  arm();
  let body: ReadableStream | null = null;
  // A GET or HEAD body has no meaning (RFC 9110 §9.3.1, §9.3.2) and the runtime cannot forward one:
  // it is dropped with its length (`curl -X GET --data-binary` got 500 on every URL).
  const bodyDropped = !!request.body && (request.method === 'GET' || request.method === 'HEAD');
  if (request.body && !bodyDropped) {
    const length = request.headers.get('content-length');
    const counted = request.body.pipeThrough(new TransformStream({ transform: (chunk, out) => (arm(), out.enqueue(chunk)), flush: arm }));
    // FixedLengthStream keeps Content-Length (a plain stream would go chunked, which some origins refuse: 411).
    body = length !== null && /^\d{1,15}$/.test(length) ? counted.pipeThrough(new FixedLengthStream(Number(length))) : counted;
  }
  return { body, bodyDropped, passed, clear: () => clearTimeout(timer) };
}
