// A client of the gateway's signed origin API for holds: get, list, payment-pending, confirm,
// release, extend. Signed per try, with a timeout per try and retries that send the same ids again.
import type { FetchLike } from './admission.ts';
import { signOriginRequest } from './protocol.ts';
import { checkRetryPolicy, DEFAULT_RETRY, retryable, retryDelayMs, type RetryPolicy, type TryOutcome } from './retry.ts';

/** Hold states of the gateway's inventory (docs/reference/api.md). */
export type HoldStatus = 'HELD' | 'PAYMENT_PENDING' | 'NEEDS_RECONCILIATION' | 'SOLD' | 'RELEASED' | 'EXPIRED';

/** A hold as the origin API answers it. Amounts in minor units of `currency`; times epoch ms. */
export interface Hold {
  holdId: string;
  status: HoldStatus;
  /** The visitor id that owns the hold; null in answers that do not carry it (confirm, release, payment-pending). */
  account: string | null;
  seatIds: string[];
  /** General admission tier, or null for seats. */
  tier: string | null;
  quantity: number;
  priceMinor: number;
  currency: string;
  expiresAtMs: number;
  /** The order the hold was sold to, or null. */
  orderId: string | null;
}

/**
 * The documented refusals of the hold calls (docs/reference/api.md, "Origin API"): the hold's own state
 * (`HOLD_*` including an extension's, `PRICE_MISMATCH`, `PAYMENT_IN_PROGRESS`, `ORDER_ALREADY_USED`, `ACCOUNT_LIMIT`,
 * `NOT_HOLD_OWNER`), the event (`EVENT_NOT_FOUND`), and this client's setup (`SIGNATURE_INVALID`:
 * wrong secret or clock; `INVALID_REQUEST`, `PAYLOAD_TOO_LARGE`). Any other 4xx is `UNRECOGNIZED`
 * with the gateway's code in `detail`.
 */
export const HOLD_REFUSALS = [
  'HOLD_NOT_FOUND',
  'NOT_HOLD_OWNER',
  'HOLD_EXPIRED',
  'HOLD_NOT_ACTIVE',
  'HOLD_ALREADY_CONFIRMED',
  'PRICE_MISMATCH',
  'PAYMENT_IN_PROGRESS',
  'ORDER_ALREADY_USED',
  'HOLD_EXTENSIONS_OFF',
  'HOLD_EXTENSION_LIMIT',
  'HOLD_AT_LONGEST',
  'ACCOUNT_LIMIT',
  'EVENT_NOT_FOUND',
  'SIGNATURE_INVALID',
  'INVALID_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'UNRECOGNIZED',
] as const;
/** One of HOLD_REFUSALS. */
export type HoldRefusal = (typeof HOLD_REFUSALS)[number];

/**
 * The answer of one hold call, after retries:
 * - `ok`: the hold after the call;
 * - `refused`: a final 4xx, with its code, status, detail and (for state refusals) the hold as it is;
 * - `no_answer`: timeouts, network failures or 5xx on every try. The call may or may not have
 *   happened: decide nothing from it (docs/reference/origin-contract.md rule 4) and try again later with
 *   the same ids.
 */
export type HoldResult =
  | { kind: 'ok'; hold: Hold }
  | { kind: 'refused'; code: HoldRefusal; status: number; detail: string; hold: Hold | null }
  | { kind: 'no_answer'; reason: 'timeout' | 'network' | 'server_error'; attempts: number };

/** A hold's extensions as `extendHold` answers them. Times epoch ms. */
export interface HoldExtension {
  /** Extensions granted so far. */
  used: number;
  /** Extensions the event allows one hold (0: none). */
  max: number;
  /** The latest deadline any extension may give this hold; null when the event allows none. */
  latestExpiresAtMs: number | null;
}

/** The answer of `extendHold`: `ok` adds the hold's extensions; refusals and `no_answer` as for every hold call. */
export type HoldExtendResult =
  | { kind: 'ok'; hold: Hold; extension: HoldExtension }
  | Extract<HoldResult, { kind: 'refused' }>
  | Extract<HoldResult, { kind: 'no_answer' }>;

/** One page of `listHolds`: pass `next` as `after` for the following page; null at the end. */
export type HoldListResult =
  | { kind: 'ok'; holds: Hold[]; next: string | null }
  | Extract<HoldResult, { kind: 'refused' }>
  | Extract<HoldResult, { kind: 'no_answer' }>;

/** Options of `GatewayClient`. */
export interface GatewayClientOptions {
  /** The gateway's base URL, e.g. `https://tickets.example.com` (or `https://gateway` for a service binding). */
  gatewayUrl: string | URL;
  /** The event whose holds this client handles. */
  eventId: string;
  /** The gateway's ORIGIN_HMAC_SECRET. */
  secret: string;
  /** How requests are sent (default global `fetch`); e.g. `(r) => env.GATEWAY.fetch(r)` in a Worker. */
  fetch?: FetchLike;
  /** Timeout of each try, ms (default 5,000; 100-60,000). */
  timeoutMs?: number;
  /** Retry policy (default DEFAULT_RETRY: 3 tries, full-jitter waits). */
  retry?: Partial<RetryPolicy>;
  /** Clock, epoch ms (default Date.now); signatures carry its time. */
  clock?: () => number;
  /** Random numbers in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  /** How to wait between tries (default setTimeout; tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/** Default timeout of one try of a gateway call, ms. */
export const DEFAULT_GATEWAY_TIMEOUT_MS = 5_000;

const EVENT_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A hold from the gateway's JSON; null when the body is not one. */
export function parseHold(d: unknown): Hold | null {
  if (!d || typeof d !== 'object') return null;
  const h = d as Record<string, unknown>;
  if (typeof h.holdId !== 'string' || typeof h.status !== 'string') return null;
  const expires = typeof h.expiresAt === 'string' ? Date.parse(h.expiresAt) : NaN;
  return {
    holdId: h.holdId,
    status: h.status as HoldStatus,
    account: typeof h.account === 'string' ? h.account : null,
    seatIds: Array.isArray(h.seatIds) ? h.seatIds.map(String) : [],
    tier: typeof h.tier === 'string' ? h.tier : null,
    quantity: typeof h.quantity === 'number' ? h.quantity : 0,
    priceMinor: typeof h.priceMinor === 'number' ? h.priceMinor : 0,
    currency: text(h.currency),
    expiresAtMs: Number.isFinite(expires) ? expires : 0,
    orderId: typeof h.orderId === 'string' ? h.orderId : null,
  };
}

/**
 * The gateway's hold calls for one event. Every call is idempotent at the gateway, so every call
 * is retried on timeouts, network failures, 5xx and 429 with the same hold id, order id and
 * amount (re-signed with a fresh timestamp per try); a refusal is never retried. Bad arguments
 * (an empty hold id, a fractional amount...) reject with a TypeError naming the field, before anything is sent.
 */
export class GatewayClient {
  readonly eventId: string;
  private readonly base: URL;
  private readonly secret: string;
  private readonly fetchFn: FetchLike;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly clock: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  /** @throws TypeError naming the option when one is missing or out of range (nothing is sent) */
  constructor(opts: GatewayClientOptions) {
    if (!EVENT_ID.test(opts?.eventId ?? '')) throw new TypeError('eventId must be a gateway event id (a-z, 0-9, -; up to 64)');
    if (typeof opts.secret !== 'string' || !opts.secret) throw new TypeError('secret must be the non-empty ORIGIN_HMAC_SECRET');
    const base = new URL(opts.gatewayUrl);
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError('gatewayUrl must be http(s)');
    const timeoutMs = opts.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 60_000) throw new TypeError('timeoutMs must be 100-60000');
    this.retry = checkRetryPolicy({ ...DEFAULT_RETRY, ...opts.retry });
    this.eventId = opts.eventId;
    this.base = base;
    this.secret = opts.secret;
    this.fetchFn = opts.fetch ?? ((r) => fetch(r));
    this.timeoutMs = timeoutMs;
    this.clock = opts.clock ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** `GET .../holds/{holdId}`: the hold with its account and price. */
  async getHold(holdId: string): Promise<HoldResult> {
    return asHoldResult(await this.holdCall('GET', holdId, ''));
  }

  /**
   * `POST .../payment-pending`: moves a HELD hold to PAYMENT_PENDING (its deadline moved once to
   * now + the event's payment grace). Call it before authorizing the payment. Repeating it is a no-op.
   * @param opts.account the visitor id the origin vouches for (refused as NOT_HOLD_OWNER when it is not the hold's)
   */
  async paymentPending(holdId: string, opts: { account?: string } = {}): Promise<HoldResult> {
    return asHoldResult(await this.holdCall('POST', holdId, '/payment-pending', accountBody(opts.account)));
  }

  /**
   * `POST .../confirm`: sells the hold to `orderId` for exactly its price. The same order id and
   * amount again answers the same SOLD hold, so a confirm whose answer was lost is simply repeated.
   * @param opts.amountMinor the authorized amount, minor units (must equal the hold's price)
   * @throws TypeError (a rejection) when orderId is empty or over 128 characters, or amountMinor is not a whole number >= 0 (nothing is sent)
   */
  async confirm(holdId: string, opts: { orderId: string; amountMinor: number; account?: string }): Promise<HoldResult> {
    if (typeof opts?.orderId !== 'string' || opts.orderId.length < 1 || opts.orderId.length > 128)
      throw new TypeError('orderId must be 1-128 characters');
    if (!Number.isSafeInteger(opts.amountMinor) || opts.amountMinor < 0) throw new TypeError('amountMinor must be a whole number >= 0');
    const body = { orderId: opts.orderId, amountMinor: opts.amountMinor, ...accountBody(opts.account) };
    return asHoldResult(await this.holdCall('POST', holdId, '/confirm', body));
  }

  /** `POST .../release`: RELEASED (final), also from PAYMENT_PENDING or NEEDS_RECONCILIATION. Repeating it is a no-op. */
  async release(holdId: string, opts: { account?: string } = {}): Promise<HoldResult> {
    return asHoldResult(await this.holdCall('POST', holdId, '/release', accountBody(opts.account)));
  }

  /**
   * `POST .../extend`: more time on a HELD hold, within the event's `holdExtension` bounds (its
   * deadline plus `extensionSeconds`, never past its placement plus `maxTotalSeconds`). The same
   * `idempotencyKey` again answers the first extension and changes nothing, so an extension whose
   * answer was lost is simply repeated; choose a new key per intended extension.
   * @param opts.idempotencyKey 1-128 visible ASCII characters, scoped to the hold
   * @param opts.account the visitor id the origin vouches for (refused as NOT_HOLD_OWNER when it is not the hold's)
   * @throws TypeError (a rejection) when idempotencyKey is not 1-128 visible ASCII characters (nothing is sent)
   */
  async extendHold(holdId: string, opts: { idempotencyKey: string; account?: string }): Promise<HoldExtendResult> {
    if (typeof opts?.idempotencyKey !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(opts.idempotencyKey))
      throw new TypeError('idempotencyKey must be 1-128 visible ASCII characters');
    const body = { idempotencyKey: opts.idempotencyKey, ...accountBody(opts.account) };
    const r = await this.holdCall('POST', holdId, '/extend', body);
    if (r.kind !== 'ok') return r;
    return { kind: 'ok', hold: r.hold, extension: parseExtension(r.data) };
  }

  /**
   * `GET .../holds?after=&limit=`: one page of the holds whose payment started or that are sold
   * (PAYMENT_PENDING, NEEDS_RECONCILIATION, SOLD), in hold-id order, for reconciliation.
   * @param opts.after the previous page's `next` (default: from the start); opts.limit 1-500 (default 100)
   */
  async listHolds(opts: { after?: string; limit?: number } = {}): Promise<HoldListResult> {
    const limit = opts.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new TypeError('limit must be 1-500');
    const query = `?limit=${limit}&after=${encodeURIComponent(opts.after ?? '')}`;
    const r = await this.send('GET', `/_wr/origin/events/${this.eventId}/holds`, query, undefined);
    if (r.kind !== 'answer') return r;
    const d = r.data as { holds?: unknown; next?: unknown };
    if (r.status >= 200 && r.status < 300 && Array.isArray(d.holds)) {
      const holds = d.holds.map(parseHold).filter((h): h is Hold => h !== null);
      return { kind: 'ok', holds, next: typeof d.next === 'string' ? d.next : null };
    }
    return refusal(r.status, r.data);
  }

  private async holdCall(
    method: 'GET' | 'POST',
    holdId: string,
    action: string,
    body?: object,
  ): Promise<Exclude<HoldResult, { kind: 'ok' }> | { kind: 'ok'; hold: Hold; data: unknown }> {
    if (typeof holdId !== 'string' || holdId.length < 1 || holdId.length > 128) throw new TypeError('holdId must be 1-128 characters');
    const path = `/_wr/origin/events/${this.eventId}/holds/${encodeURIComponent(holdId)}${action}`;
    const r = await this.send(method, path, '', method === 'GET' ? undefined : (body ?? {}));
    if (r.kind !== 'answer') return r;
    const hold = r.status >= 200 && r.status < 300 ? parseHold(r.data) : null;
    if (hold) return { kind: 'ok', hold, data: r.data };
    return refusal(r.status, r.data);
  }

  /** Sends one call with retries; the body text (and so every id in it) is the same on every try. */
  protected async send(
    method: 'GET' | 'POST',
    path: string,
    query: string,
    body: object | undefined,
  ): Promise<{ kind: 'answer'; status: number; data: unknown } | Extract<HoldResult, { kind: 'no_answer' }>> {
    const bodyText = body === undefined ? '' : JSON.stringify(body);
    let last: TryOutcome = { kind: 'network' };
    for (let attempt = 1; ; attempt++) {
      last = { kind: 'network' };
      try {
        const headers = {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(await signOriginRequest(this.secret, method, path, bodyText, this.clock())),
        };
        const res = await this.fetchFn(
          new Request(new URL(path + query, this.base), {
            method,
            headers,
            ...(body === undefined ? {} : { body: bodyText }),
            signal: AbortSignal.timeout(this.timeoutMs),
          }),
        );
        // A body cut off after the status line (the gateway died mid-answer) throws here and counts
        // as a network failure: the call may or may not have happened, so it is tried again rather
        // than read as an empty answer. A complete body that is not JSON leaves the status to decide.
        const data = parseBody(await res.text());
        const retryAfterS = Number(res.headers.get('retry-after')) || undefined;
        last = { kind: 'answered', status: res.status, ...(retryAfterS ? { retryAfterS } : {}) };
        if (!retryable(last)) return { kind: 'answer', status: res.status, data };
      } catch (err) {
        last =
          err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError') ? { kind: 'timeout' } : { kind: 'network' };
      }
      if (attempt >= this.retry.attempts) break;
      await this.sleep(retryDelayMs(attempt, this.retry, this.random(), last));
    }
    const reason = last.kind === 'answered' ? 'server_error' : last.kind;
    return { kind: 'no_answer', reason, attempts: this.retry.attempts };
  }
}

/** A hold's `extension` from the gateway's JSON (zeros when the body has none). */
function parseExtension(data: unknown): HoldExtension {
  const d =
    data && typeof data === 'object' ? ((data as Record<string, unknown>).extension as Record<string, unknown> | undefined) : undefined;
  const latest = typeof d?.latestExpiresAt === 'string' ? Date.parse(d.latestExpiresAt) : NaN;
  return {
    used: typeof d?.used === 'number' ? d.used : 0,
    max: typeof d?.max === 'number' ? d.max : 0,
    latestExpiresAtMs: Number.isFinite(latest) ? latest : null,
  };
}

/** `holdCall`'s answer as a `HoldResult` (without the raw body). */
function asHoldResult(r: Exclude<HoldResult, { kind: 'ok' }> | { kind: 'ok'; hold: Hold; data: unknown }): HoldResult {
  return r.kind === 'ok' ? { kind: 'ok', hold: r.hold } : r;
}

function accountBody(account: string | undefined): { account?: string } {
  if (account === undefined) return {};
  if (typeof account !== 'string' || account.length < 1 || account.length > 128) throw new TypeError('account must be 1-128 characters');
  return { account };
}

function refusal(status: number, data: unknown): Extract<HoldResult, { kind: 'refused' }> {
  const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const raw = text(d.code);
  const known = (HOLD_REFUSALS as readonly string[]).includes(raw) && raw !== 'UNRECOGNIZED';
  return {
    kind: 'refused',
    code: known ? (raw as HoldRefusal) : 'UNRECOGNIZED',
    status,
    detail: known ? text(d.detail) : `${raw || 'no code'} (${status})${d.detail ? `: ${text(d.detail)}` : ''}`,
    hold: parseHold(d.hold),
  };
}

/** A response body as JSON; `{}` when it is empty or not JSON. */
function parseBody(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : {};
  } catch {
    return {};
  }
}
