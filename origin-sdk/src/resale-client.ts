// The origin's calls for returns, the waitlist and face-value resale (docs/how-to/returns-and-waitlist.md),
// on top of the hold client: the same signing, timeouts and retries. Also the check of the signed
// offer webhook the gateway sends.
import { GatewayClient, parseHold, type Hold } from './gateway-client.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyOriginSignature } from './protocol.ts';

/**
 * The refusals of the resale calls (docs/reference/errors.md): `RESALE_OFF`, `RETURN_DEADLINE_PASSED`,
 * `SEATS_NOT_IN_ORDER`, `ORDER_ALREADY_RETURNED`, `RETURN_IN_PROGRESS`, `PAYMENT_NOT_SETTLED`,
 * `OFFER_NOT_FOUND`, `OFFER_LAPSED`, `NOT_OFFER_OWNER`, `WAITLIST_NOT_OPEN`, and the hold calls' own
 * (`HOLD_NOT_FOUND`, `HOLD_NOT_ACTIVE`, `ACCOUNT_LIMIT`, `IDEMPOTENCY_KEY_REUSED`...). Any other 4xx is `UNRECOGNIZED`.
 */
export const RESALE_REFUSALS = [
  'RESALE_OFF',
  'RETURN_DEADLINE_PASSED',
  'SEATS_NOT_IN_ORDER',
  'ORDER_ALREADY_RETURNED',
  'RETURN_IN_PROGRESS',
  'PAYMENT_NOT_SETTLED',
  'OFFER_NOT_FOUND',
  'OFFER_LAPSED',
  'NOT_OFFER_OWNER',
  'WAITLIST_NOT_OPEN',
  'HOLD_NOT_FOUND',
  'HOLD_NOT_ACTIVE',
  'ACCOUNT_LIMIT',
  'IDEMPOTENCY_KEY_REUSED',
  'EVENT_NOT_FOUND',
  'SIGNATURE_INVALID',
  'INVALID_REQUEST',
  'UNRECOGNIZED',
] as const;
/** One of RESALE_REFUSALS. */
export type ResaleRefusal = (typeof RESALE_REFUSALS)[number];

/** A resale call's answer: `ok` with its data, a final refusal, or no answer after every retry (decide nothing from it; repeat it). */
export type ResaleResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'refused'; code: ResaleRefusal; status: number; detail: string }
  | { kind: 'no_answer'; reason: 'timeout' | 'network' | 'server_error'; attempts: number };

/** A return: its seats at face value (minor units), each refunded or not yet, and resold to which hold. */
export interface SeatReturn {
  returnId: string;
  holdId: string;
  orderId: string;
  refund: 'on_resale' | 'at_once';
  createdAt: string;
  seats: { seatId: string; faceMinor: number; refunded: boolean; resoldHoldId: string | null }[];
}

/** A waitlist entry: WAITING, OFFERED (its offer is hold `offerHoldId`), TAKEN or LAPSED. */
export interface WaitlistEntry {
  entryId: number;
  account: string;
  quantity: number;
  state: 'WAITING' | 'OFFERED' | 'TAKEN' | 'LAPSED';
  joinedAt: string;
  offerHoldId: string | null;
}

/** One resale feed entry (also a webhook's body): a return, offer, lapse, take, resale or refund. */
export interface ResaleFeedEntry {
  id: number;
  at: string;
  kind: 'return' | 'offer' | 'offer_lapsed' | 'offer_taken' | 'resold' | 'refund';
  ref: string;
  data: Record<string, unknown>;
}

const KEY = /^[\x21-\x7e]{1,128}$/;

/**
 * The gateway client with the resale calls for one event. Each call is idempotent at the gateway
 * (a return by its key, a join by its account, an acceptance by its offer), so each is retried like
 * the hold calls.
 */
export class ResaleClient extends GatewayClient {
  /**
   * `POST .../holds/{holdId}/return`: returns seats of the hold's sold order. The seats go to the
   * waitlist as offers (or back on open sale); the order is refunded per seat when its new buyer
   * pays (or at once, by the event's `resale.refund`): follow it in the feed (`refund` entries).
   * @param opts.seatIds the seats to return (1-6); absent = every seat not returned yet
   * @param opts.idempotencyKey 1-128 visible ASCII characters, one per intended return
   * @throws TypeError (a rejection) for a bad key or seat list (nothing is sent)
   */
  async returnSeats(holdId: string, opts: { idempotencyKey: string; seatIds?: string[] }): Promise<ResaleResult<SeatReturn>> {
    if (typeof holdId !== 'string' || holdId.length < 1 || holdId.length > 128) throw new TypeError('holdId must be 1-128 characters');
    if (typeof opts?.idempotencyKey !== 'string' || !KEY.test(opts.idempotencyKey))
      throw new TypeError('idempotencyKey must be 1-128 visible ASCII characters');
    if (opts.seatIds !== undefined && (!Array.isArray(opts.seatIds) || opts.seatIds.length < 1 || opts.seatIds.length > 6))
      throw new TypeError('seatIds must list 1-6 seats');
    const body = { idempotencyKey: opts.idempotencyKey, ...(opts.seatIds ? { seatIds: opts.seatIds } : {}) };
    return this.call('POST', `/holds/${encodeURIComponent(holdId)}/return`, '', body, (d) => d as SeatReturn);
  }

  /** `GET .../waitlist`: one page of the waitlist in arrival order, with the resale counts. */
  async waitlist(
    opts: { after?: number; limit?: number } = {},
  ): Promise<ResaleResult<{ entries: WaitlistEntry[]; counts: Record<string, number>; next: number | null }>> {
    return this.call(
      'GET',
      '/waitlist',
      pageQuery(opts),
      undefined,
      (d) => d as { entries: WaitlistEntry[]; counts: Record<string, number>; next: number | null },
    );
  }

  /**
   * `POST .../waitlist`: the origin puts one of its signed-in accounts on the waitlist for 1-6 seats
   * (refused `WAITLIST_NOT_OPEN` while seats are on sale). One live entry per account: again answers it.
   */
  async joinWaitlist(account: string, quantity: number): Promise<ResaleResult<{ entry: WaitlistEntry; replayed: boolean }>> {
    if (typeof account !== 'string' || account.length < 1 || account.length > 128) throw new TypeError('account must be 1-128 characters');
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 6) throw new TypeError('quantity must be 1-6');
    return this.call('POST', '/waitlist', '', { account, quantity }, (d) => d as { entry: WaitlistEntry; replayed: boolean });
  }

  /**
   * `POST .../offers/{holdId}/accept`: the offered account takes its offer. The offer is a hold: it
   * now lasts a hold's TTL, and the origin pays for it with `paymentPending` and `confirm` at its
   * price (face value plus the organizer's fee).
   */
  async acceptOffer(holdId: string, account: string): Promise<ResaleResult<Hold>> {
    if (typeof holdId !== 'string' || holdId.length < 1 || holdId.length > 128) throw new TypeError('holdId must be 1-128 characters');
    if (typeof account !== 'string' || account.length < 1 || account.length > 128) throw new TypeError('account must be 1-128 characters');
    return this.call('POST', `/offers/${encodeURIComponent(holdId)}/accept`, '', { account }, (d) => parseHold(d));
  }

  /** `GET .../resale/feed`: entries after `after` (the previous page's `next`), oldest first. */
  async resaleFeed(
    opts: { after?: number; limit?: number } = {},
  ): Promise<ResaleResult<{ events: ResaleFeedEntry[]; next: number | null }>> {
    return this.call('GET', '/resale/feed', pageQuery(opts), undefined, (d) => d as { events: ResaleFeedEntry[]; next: number | null });
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    query: string,
    body: object | undefined,
    parse: (data: unknown) => T | null,
  ): Promise<ResaleResult<T>> {
    const r = await this.send(method, `/_wr/origin/events/${this.eventId}${path}`, query, body);
    if (r.kind !== 'answer') return r;
    const value = r.status >= 200 && r.status < 300 ? parse(r.data) : null;
    if (value !== null) return { kind: 'ok', value };
    const d = (r.data && typeof r.data === 'object' ? r.data : {}) as Record<string, unknown>;
    const raw = typeof d.code === 'string' ? d.code : '';
    const known = (RESALE_REFUSALS as readonly string[]).includes(raw) && raw !== 'UNRECOGNIZED';
    const detail = typeof d.detail === 'string' ? d.detail : '';
    return {
      kind: 'refused',
      code: known ? (raw as ResaleRefusal) : 'UNRECOGNIZED',
      status: r.status,
      detail: known ? detail : `${raw} ${detail}`.trim(),
    };
  }
}

function pageQuery(opts: { after?: number; limit?: number }): string {
  const limit = opts.limit ?? 100;
  const after = opts.after ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new TypeError('limit must be 1-500');
  if (!Number.isSafeInteger(after) || after < 0) throw new TypeError('after must be a whole number >= 0');
  return `?after=${after}&limit=${limit}`;
}

/**
 * Checks a resale webhook from the gateway: signed like origin API calls (HMAC-SHA256 over
 * "POST\nPATH\nTIMESTAMP\nBODY" under ORIGIN_HMAC_SECRET, fresh within the signature window).
 * Delivery is at least once: deduplicate by the entry's `id`.
 * @returns the feed entry, or null when the signature or body does not check
 */
export async function verifyResaleWebhook(request: Request, secret: string, nowMs = Date.now()): Promise<ResaleFeedEntry | null> {
  const body = await request.text();
  const path = new URL(request.url).pathname;
  const ok = await verifyOriginSignature(
    secret,
    { method: request.method, path, body },
    request.headers.get(TIMESTAMP_HEADER),
    request.headers.get(SIGNATURE_HEADER),
    nowMs,
  );
  if (!ok) return null;
  try {
    const e = JSON.parse(body) as { id?: unknown; at?: unknown; kind?: unknown; ref?: unknown; data?: unknown };
    if (typeof e.id !== 'number' || typeof e.kind !== 'string' || typeof e.ref !== 'string' || typeof e.at !== 'string') return null;
    return { id: e.id, at: e.at, kind: e.kind as ResaleFeedEntry['kind'], ref: e.ref, data: (e.data ?? {}) as Record<string, unknown> };
  } catch {
    return null;
  }
}
