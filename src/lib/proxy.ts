// Forwarding requests to the origin: admitted visitors' (with the admission token) and pass-through.
import { originPullKey } from '../../contracts/hmac';
import { ADMISSION_HEADER, COMMAND_HEADER, ORIGIN_PULL_HEADER } from '../../contracts/names';
import { isGatewayCookie } from './cookies';
import { GatewayError } from './errors';
import { logDecision } from '../../contracts/log';
import { originSettings } from './settings';
import { ORIGIN_RETRY_AFTER_S, originDeadline, type OriginDeadline } from './origin-deadline';
import { UNLIMITED, originGate, type GateAsk } from './origin-limit';

/** Via entry the gateway adds to every forwarded request (RFC 9110 section 7.6.3). */
export const VIA = '1.1 waiting-room-gateway';
/**
 * Origin statuses that mean "down or overloaded" rather than an answer of its own: bad gateway,
 * unavailable, gateway timeout, and Cloudflare's 520-526 origin errors. The visitor gets the
 * gateway's explanation instead of an opaque proxy page.
 */
const ORIGIN_DOWN_STATUSES = new Set([502, 503, 504, 520, 521, 522, 523, 524, 525, 526]);

/**
 * Removes the gateway's own cookies from a Cookie header; the origin has no use for them. A header
 * without any goes on as it came; otherwise the kept pairs are joined with `; `. Runs on every
 * forwarded request: one scan, no arrays.
 */
export function stripGatewayCookies(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  if (!cookieHeader.includes('__wr_') && !cookieHeader.includes('__Host-wr_')) return cookieHeader;
  let kept = '';
  for (let start = 0; start <= cookieHeader.length;) {
    const semi = cookieHeader.indexOf(';', start);
    const end = semi < 0 ? cookieHeader.length : semi;
    const pair = cookieHeader.slice(start, end).trim();
    if (pair && !isGatewayCookie(pair.slice(0, pair.indexOf('=') >>> 0))) kept = kept ? `${kept}; ${pair}` : pair;
    start = end + 1;
  }
  return kept || null;
}

/**
 * Hop-by-hop fields (RFC 9110 section 7.6.1): they describe one connection, so a proxy must not
 * forward them, nor any field the Connection header names (when the Worker sees that header: a
 * proxy in front, such as `wrangler dev`'s, may consume it first; docs/reference/api.md). `Upgrade: websocket` is kept on
 * requests: the Workers runtime forwards it as a WebSocket, not as raw bytes.
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding', 'upgrade'];

function dropHopByHop(headers: Headers, keepWebSocketUpgrade: boolean): void {
  for (const name of (headers.get('connection') ?? '').split(',')) {
    const field = name.trim().toLowerCase();
    if (field && !(keepWebSocketUpgrade && field === 'upgrade')) headers.delete(field);
  }
  const websocket = keepWebSocketUpgrade && headers.get('upgrade')?.toLowerCase() === 'websocket';
  for (const field of HOP_BY_HOP) if (!(websocket && (field === 'upgrade' || field === 'connection'))) headers.delete(field);
}

/**
 * Request fields some servers route by instead of the request line (IIS URL Rewrite, Symfony's
 * old `IisUrlRewrite`, Zend, some Java stacks): from a client they would make the origin serve
 * another path than the one the room table matched, so the gateway never forwards them.
 */
const PATH_OVERRIDES = ['x-original-url', 'x-rewrite-url'];

/**
 * Request fields many frameworks read as the method instead of the request line (Express's
 * method-override, Rails' and Laravel's `_method` kin, ASP.NET Web API, Google APIs): dropped from
 * requests a room's bypass rules let through, because the bypass was decided by the method on the
 * request line (`bypass.methods`), and an `OPTIONS` with `X-HTTP-Method-Override: POST` must not
 * reach the origin as a POST.
 */
const METHOD_OVERRIDES = ['x-http-method-override', 'x-http-method', 'x-method-override'];

/**
 * The request the origin gets: to `target`, the client's method and headers under the forwarding
 * rules (`applyForwardingRules`), the deadline's body, redirects returned rather than followed.
 * The new Request copies the client's headers once and the rules edit that copy in place (a
 * `Headers` built first was copied again by `new Request`: 6-9 us of CPU per 20-field browser request).
 */
function forwardedRequest(
  request: Request,
  url: URL,
  target: URL,
  deadline: OriginDeadline,
  pull: string | null,
  admission: string | null,
) {
  const forwarded = new Request(target, { method: request.method, headers: request.headers, body: deadline.body, redirect: 'manual' });
  applyForwardingRules(forwarded.headers, request.headers, url, pull, admission);
  if (deadline.bodyDropped) forwarded.headers.delete('content-length');
  return forwarded;
}

/**
 * The rules for the headers the origin gets (`headers`, a copy of the client's `incoming`, edited in
 * place): the client's, without hop-by-hop fields, without `X-Original-URL`
 * and `X-Rewrite-URL` (PATH_OVERRIDES), and without the gateway's
 * own credentials (its cookies, and any client-sent `X-Admission-Token`: the origin sees an
 * admission token only when the gateway put it there), plus the gateway's Via entry and the
 * de-facto reverse-proxy fields (as nginx's `proxy_set_header` recipes set them):
 * - `X-Forwarded-Host` / `X-Forwarded-Proto`: the host and scheme the visitor asked for (with
 *   `ORIGIN_URL` the request reaches the origin under the origin's own host), overwriting any
 *   client-sent value;
 * - `X-Forwarded-For`: the client's list with `CF-Connecting-IP` (the address Cloudflare saw,
 *   which a Worker's subrequest would otherwise replace by the Worker's) as its last hop.
 *
 * - `X-WR-Origin-Pull`: the origin-pull key `pull` (origin SDK `fromGateway` checks it), replacing
 *   any client-sent value, so the origin can refuse requests that did not come through the gateway.
 *
 * - `X-Admission-Token`: the verified admission token `admission` (replacing any client-sent one).
 *
 * @param requestUrl the URL the visitor asked the gateway for
 * @param pull the origin-pull key, or null to send none
 * @param admission the admission token, or null to send none
 */
function applyForwardingRules(headers: Headers, incoming: Headers, requestUrl: URL, pull: string | null, admission: string | null): void {
  dropHopByHop(headers, true);
  if (admission) headers.set(ADMISSION_HEADER, admission);
  else headers.delete(ADMISSION_HEADER);
  for (const field of PATH_OVERRIDES) headers.delete(field);
  if (pull) headers.set(ORIGIN_PULL_HEADER, pull);
  else headers.delete(ORIGIN_PULL_HEADER);
  const cookie = stripGatewayCookies(headers.get('cookie'));
  if (cookie) headers.set('cookie', cookie);
  else headers.delete('cookie');
  const via = headers.get('via');
  headers.set('via', via ? `${via}, ${VIA}` : VIA);
  headers.set('x-forwarded-host', requestUrl.host);
  headers.set('x-forwarded-proto', requestUrl.protocol.slice(0, -1));
  const client = incoming.get('cf-connecting-ip');
  if (client) {
    const hops = (incoming.get('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    if (hops.at(-1) !== client) hops.push(client);
    headers.set('x-forwarded-for', hops.join(', '));
  }
}

/** Removes what must not reach the browser from an origin answer's (mutable) headers: hop-by-hop fields and the command header. */
export function stripReturnedHeaders(headers: Headers): void {
  dropHopByHop(headers, false);
  headers.delete(COMMAND_HEADER);
}

/**
 * The origin's answer as the gateway passes it on, through `stripReturnedHeaders`: a copy when it
 * had anything to strip, else the answer itself (most have nothing, and a copy costs).
 */
function returnedResponse(res: Response): Response {
  if (res.status === 101) return res; // a WebSocket upgrade: its Upgrade/Connection fields are the point
  if (!res.headers.has(COMMAND_HEADER) && !HOP_BY_HOP.some((f) => res.headers.has(f))) return res;
  const out = new Response(res.body, res);
  stripReturnedHeaders(out.headers);
  return out;
}

/** The commands an origin answer carries (lower case), e.g. `['revoke']`. */
export function originCommands(res: Response): string[] {
  const raw = res.headers.get(COMMAND_HEADER);
  return raw
    ? raw
        .split(',')
        .map((c) => c.trim().toLowerCase())
        .filter(Boolean)
    : [];
}

/** The bindings forwarding reads: the origin's settings, and the optional ORIGIN service binding. */
type OriginEnv = Partial<Pick<Env, 'ORIGIN_URL' | 'ORIGIN_TIMEOUT_MS' | 'ORIGIN_HMAC_SECRET'>> & { ORIGIN?: Fetcher };

let pullKey: { secret: string; key: Promise<string | null> } | null = null;

/**
 * The origin-pull key forwarded requests carry (origin SDK `originPullKey`), derived once per
 * isolate and secret; null without an ORIGIN_HMAC_SECRET (then no request carries one).
 */
function originPull(env: OriginEnv): Promise<string | null> {
  const secret = env.ORIGIN_HMAC_SECRET ?? '';
  if (pullKey?.secret !== secret) pullKey = { secret, key: secret ? originPullKey(secret) : Promise.resolve(null) };
  return pullKey.key;
}

/**
 * Where a request goes: the scheme, host and port of `ORIGIN_URL` with the request's own path and
 * query when set, else the same URL over the ORIGIN binding. The path is set through the URL's
 * `pathname` setter, never resolved as a reference: resolving `//host/x` (or `/\host/x`, which
 * the WHATWG parser reads the same way) against a base is a network-path reference (RFC 3986
 * section 4.2) and would reach another host with the visitor's cookies.
 */
export function originTarget(url: URL, originUrl: string | null): URL {
  if (!originUrl) return url;
  const target = new URL(originUrl);
  target.pathname = url.pathname;
  target.search = url.search;
  target.hash = '';
  return target;
}

function unavailable(eventId: string | null, cause: 'timeout' | 'unreachable' | 'unconfigured' | 'limit', err?: unknown): GatewayError {
  logDecision('origin.fault', { eventId, code: 'ORIGIN_UNAVAILABLE', cause });
  const why = {
    timeout: 'the ticketing site did not answer in time',
    limit: 'the ticketing site is serving as many requests as it can and this one waited too long for its turn',
    unreachable: 'the ticketing site cannot be reached',
    unconfigured: 'the gateway has no origin configured (set ORIGIN_URL or bind ORIGIN)',
  }[cause];
  return new GatewayError('ORIGIN_UNAVAILABLE', {
    detail: eventId ? `${why}; your admission stays valid and nobody in the queue loses their place` : why,
    retryAfterS: ORIGIN_RETRY_AFTER_S,
    ...(err === undefined ? {} : { cause: err }),
  });
}

/** Sends a prepared request to the origin. @throws GatewayError ORIGIN_UNAVAILABLE on failure or timeout */
async function send(forwarded: Request, env: OriginEnv, originUrl: string | null, eventId: string | null): Promise<Response> {
  if (!originUrl && !env.ORIGIN) throw unavailable(eventId, 'unconfigured');
  try {
    return originUrl ? await fetch(forwarded) : await env.ORIGIN!.fetch(forwarded);
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw unavailable(eventId, timedOut ? 'timeout' : 'unreachable', err);
  }
}

/**
 * A GET the gateway itself makes to the origin (the entry-token JWKS): to `ORIGIN_URL` (same path
 * and query) when set, else over the `ORIGIN` binding, within `timeoutMs`.
 * @throws GatewayError ORIGIN_UNAVAILABLE when the origin cannot be reached in time or none is configured
 */
export async function fetchFromOrigin(url: URL, env: OriginEnv, timeoutMs: number): Promise<Response> {
  const origin = originSettings(env);
  const request = new Request(originTarget(url, origin.url), {
    headers: { accept: 'application/json', via: VIA },
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  return send(request, env, origin.url, null);
}

/**
 * A request no room covers (or one a room's bypass rules let through), sent to the origin as a
 * reverse proxy must (RFC 9110 section 7.6): hop-by-hop fields dropped both ways, a Via entry
 * added, the gateway's own credentials removed; nothing else changes, the origin's answer
 * (status, caching, cookies, 5xx included) comes back as it is. No object is called and no cookie
 * is set. Only the wait for the origin's response headers is bounded (`ORIGIN_TIMEOUT_MS`, as in
 * rooms); once they arrive the body streams as long as it takes (downloads, server-sent events).
 *
 * @param url the request's URL, already parsed by the caller (the router needs it anyway)
 * @param bypassed true when a room covers the URL and its bypass rules let it through: the
 *   method-override fields (METHOD_OVERRIDES) are dropped too
 * @throws GatewayError ORIGIN_TIMEOUT (504, Retry-After 10) when the origin's headers do not
 *   arrive within `ORIGIN_TIMEOUT_MS`; ORIGIN_UNAVAILABLE (503, Retry-After 10) when the origin
 *   cannot be reached or none is configured
 */
export async function passThrough(request: Request, url: URL, env: OriginEnv, bypassed = false): Promise<Response> {
  const origin = originSettings(env);
  const pull = await originPull(env);
  const deadline = originDeadline(request, origin.timeoutMs);
  const forwarded = forwardedRequest(request, url, originTarget(url, origin.url), deadline, pull, null);
  if (bypassed) for (const field of METHOD_OVERRIDES) forwarded.headers.delete(field);
  try {
    return returnedResponse(await Promise.race([send(forwarded, env, origin.url, null), deadline.passed]));
  } finally {
    deadline.clear();
  }
}

/**
 * Sends an admitted visitor's request to the origin: `ORIGIN_URL` when set, else the `ORIGIN`
 * service binding, with the verified admission token in `X-Admission-Token` (replacing any
 * client-sent copy) and the forwarding rules of `passThrough`. The answer keeps the command
 * header (`originCommands`) for the caller, which must strip it (`returnedResponse`).
 *
 * @param opts.eventId the room's event, for the fault log
 * @param opts.url `request.url` already parsed (the caller's, so it is parsed once)
 * @param opts.stripAuthorization drop `Authorization` (it carried the app's queue ticket, which is
 *   the gateway's business, not the origin's)
 * @param opts.timeoutMs how long the origin gets, ms (default: `ORIGIN_TIMEOUT_MS`, see src/lib/settings.ts)
 * @param opts.gate the visitor and edge-wait callback of this isolate's origin limit (origin-limit.ts), which uploads skip
 * @throws SettingsError when ORIGIN_URL or ORIGIN_TIMEOUT_MS is malformed
 * @throws GatewayError ORIGIN_UNAVAILABLE (503, Retry-After 10 or the origin's own) on timeout,
 *   network failure, an origin answer of 502/503/504/52x, or a wait for a place under this
 *   isolate's limit of requests in flight (origin-limit.ts) as long as the origin's timeout
 */
export async function proxyToOrigin(
  request: Request,
  env: OriginEnv,
  admissionToken: string,
  opts: { eventId?: string; url?: URL; stripAuthorization?: boolean; timeoutMs?: number; gate?: GateAsk } = {},
): Promise<Response> {
  const origin = originSettings(env);
  const eventId = opts.eventId ?? null;
  const timeoutMs = opts.timeoutMs ?? origin.timeoutMs;
  const url = opts.url ?? new URL(request.url);
  const pull = await originPull(env);
  // Uploads skip the limit: their time is the visitor's, and a slow one would hold a place throughout.
  const slot = request.body ? UNLIMITED : await originGate.enter(timeoutMs, opts.gate);
  if (!slot) throw unavailable(eventId, 'limit');
  // The same bound as pass-through (originDeadline): an upload is progress, and a page that
  // streams past the bound once its headers came is not cut.
  const deadline = originDeadline(request, timeoutMs);
  let res: Response;
  try {
    const forwarded = forwardedRequest(request, url, originTarget(url, origin.url), deadline, pull, admissionToken);
    if (opts.stripAuthorization) forwarded.headers.delete('authorization');
    res = await Promise.race([send(forwarded, env, origin.url, eventId), deadline.passed]);
  } catch (err) {
    throw err instanceof GatewayError && err.code === 'ORIGIN_TIMEOUT' ? unavailable(eventId, 'timeout', err) : err;
  } finally {
    deadline.clear();
    slot.done();
  }
  if (!ORIGIN_DOWN_STATUSES.has(res.status)) return res;
  await res.body?.cancel();
  const named = Number(res.headers.get('retry-after'));
  logDecision('origin.fault', { eventId, code: 'ORIGIN_UNAVAILABLE', cause: 'status', status: res.status });
  throw new GatewayError('ORIGIN_UNAVAILABLE', {
    detail: `the ticketing site is failing or overloaded (it answered ${res.status}); your admission stays valid and nobody in the queue loses their place`,
    retryAfterS: Number.isInteger(named) && named > 0 && named <= 3600 ? named : ORIGIN_RETRY_AFTER_S,
  });
}
