// One error type for the edge, one table from error code to HTTP status, one problem renderer.

/** Stable, machine-readable error codes of the gateway's HTTP API. */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'PAYLOAD_TOO_LARGE'
  | 'URI_TOO_LONG'
  | 'METHOD_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'EVENT_NOT_FOUND'
  | 'UNAUTHORIZED'
  | 'KEY_REVOKED'
  | 'KEY_NOT_FOUND'
  | 'ROLE_REQUIRED'
  | 'NO_ORGANIZER_ROLE'
  | 'ACCESS_TOKEN_INVALID'
  | 'ACCESS_TOKEN_EXPIRED'
  | 'VERSION_MISMATCH'
  | 'CROSS_SITE_REQUEST'
  | 'TICKET_REQUIRED'
  | 'ADMISSION_REQUIRED'
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED'
  | 'SESSION_ENDED'
  | 'SIGNATURE_INVALID'
  | 'STALE_REPORT'
  | 'IDEMPOTENCY_KEY_REQUIRED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'SEAT_NOT_FOUND'
  | 'SECTION_MIX'
  | 'SECTIONS_NOT_SUPPORTED'
  | 'SEATS_UNAVAILABLE'
  | 'ACCOUNT_LIMIT'
  | 'HOLD_NOT_FOUND'
  | 'NOT_HOLD_OWNER'
  | 'HOLD_EXPIRED'
  | 'HOLD_NOT_ACTIVE'
  | 'HOLD_ALREADY_CONFIRMED'
  | 'PRICE_MISMATCH'
  | 'PAYMENT_IN_PROGRESS'
  | 'HOLD_EXTENSIONS_OFF'
  | 'HOLD_EXTENSION_LIMIT'
  | 'HOLD_AT_LONGEST'
  | 'ORDER_ALREADY_USED'
  | 'RESALE_OFF'
  | 'RETURN_DEADLINE_PASSED'
  | 'SEATS_NOT_IN_ORDER'
  | 'ORDER_ALREADY_RETURNED'
  | 'RETURN_IN_PROGRESS'
  | 'PAYMENT_NOT_SETTLED'
  | 'OFFER_NOT_FOUND'
  | 'OFFER_LAPSED'
  | 'NOT_OFFER_OWNER'
  | 'WAITLIST_NOT_OPEN'
  | 'TIER_NOT_FOUND'
  | 'SALE_CLOSED'
  | 'CONFIG_CONFLICT'
  | 'SCHEDULE_CONFLICT'
  | 'SCHEDULE_INVALID'
  | 'SCHEDULE_NOT_FOUND'
  | 'ROOM_MAINTENANCE'
  | 'ROUTE_INVALID'
  | 'ROUTE_RESERVED'
  | 'ROUTE_OVERLAP'
  | 'ROUTE_TAKEN'
  | 'ORIGIN_UNAVAILABLE'
  | 'ORIGIN_TIMEOUT'
  | 'RATE_LIMITED'
  | 'PROOF_OF_WORK_REQUIRED'
  | 'PROOF_OF_WORK_MALFORMED'
  | 'PROOF_OF_WORK_EXPIRED'
  | 'PROOF_OF_WORK_INVALID'
  | 'PROOF_OF_WORK_OTHER_EVENT'
  | 'PROOF_OF_WORK_TOO_EASY'
  | 'PROOF_OF_WORK_USED'
  | 'OVERLOADED'
  | 'ROOM_TABLE_UNAVAILABLE'
  | 'ENTRY_REQUIRED'
  | 'ENTRY_TOKEN_INVALID'
  | 'ENTRY_TOKEN_EXPIRED'
  | 'ENTRY_TOKEN_OTHER_EVENT'
  | 'ENTRY_TOKEN_USED'
  | 'LANE_NOT_CONFIGURED'
  | 'SIGN_IN_URL_INVALID'
  | 'PAGE_TEMPLATE_INVALID'
  | 'CHANNEL_UNKNOWN'
  | 'CHANNEL_REVOKED'
  | 'CHANNEL_NOT_FOUND'
  | 'NOT_IN_ALLOCATION'
  | 'ALLOCATION_NOT_FOUND'
  | 'ALLOCATION_CONFLICT'
  | 'ALLOCATION_IN_USE'
  | 'ALLOCATION_ENDED'
  | 'CURSOR_INVALID'
  | 'CURSOR_AHEAD'
  | 'CURSOR_EXPIRED'
  | 'INTERNAL';

/** HTTP status and short title per code (the `title` of RFC 9457 problem details). */
export const ERROR_TABLE: Record<ErrorCode, { status: number; title: string }> = {
  INVALID_REQUEST: { status: 400, title: 'The request is invalid' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request body is too large' },
  URI_TOO_LONG: { status: 414, title: 'The request path is too long' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'The method is not allowed' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  EVENT_NOT_FOUND: { status: 404, title: 'No such event' },
  UNAUTHORIZED: { status: 401, title: 'Missing or wrong credentials' },
  KEY_REVOKED: { status: 401, title: 'The organizer key was revoked' },
  KEY_NOT_FOUND: { status: 404, title: 'No such organizer key' },
  ROLE_REQUIRED: { status: 403, title: 'This needs a stronger organizer role' },
  NO_ORGANIZER_ROLE: { status: 403, title: 'This identity has no organizer role' },
  ACCESS_TOKEN_INVALID: { status: 401, title: 'The Cloudflare Access assertion is invalid' },
  ACCESS_TOKEN_EXPIRED: { status: 401, title: 'The Cloudflare Access assertion has expired' },
  VERSION_MISMATCH: { status: 412, title: 'The event changed since this version was read' },
  CROSS_SITE_REQUEST: { status: 403, title: 'Cross-site request refused' },
  TICKET_REQUIRED: { status: 401, title: 'A queue ticket is required' },
  ADMISSION_REQUIRED: { status: 401, title: 'An admission token is required' },
  TOKEN_INVALID: { status: 401, title: 'The token is invalid' },
  TOKEN_EXPIRED: { status: 401, title: 'The token has expired' },
  SESSION_ENDED: { status: 401, title: 'The admission session has ended' },
  SIGNATURE_INVALID: { status: 401, title: 'The request signature is invalid' },
  STALE_REPORT: { status: 409, title: 'A newer health report was already accepted' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, title: 'An Idempotency-Key header is required' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'The idempotency key was used for another request' },
  SEAT_NOT_FOUND: { status: 422, title: 'A requested seat does not exist' },
  SECTION_MIX: { status: 400, title: 'A hold takes seats of one section only' },
  SECTIONS_NOT_SUPPORTED: { status: 422, title: 'Allocations of venue-section seats are not supported yet' },
  SEATS_UNAVAILABLE: { status: 409, title: 'A requested seat is not available' },
  ACCOUNT_LIMIT: { status: 409, title: 'The per-account seat limit would be exceeded' },
  HOLD_NOT_FOUND: { status: 404, title: 'No such hold' },
  NOT_HOLD_OWNER: { status: 403, title: 'The hold belongs to another account' },
  HOLD_EXPIRED: { status: 409, title: 'The hold has expired' },
  HOLD_NOT_ACTIVE: { status: 409, title: 'The hold is no longer active' },
  HOLD_ALREADY_CONFIRMED: { status: 409, title: 'The hold was confirmed for another order' },
  PRICE_MISMATCH: { status: 409, title: 'The amount does not match the price of the hold' },
  PAYMENT_IN_PROGRESS: { status: 409, title: 'Payment has started for this hold' },
  HOLD_EXTENSIONS_OFF: { status: 409, title: 'This event does not allow holds to be extended' },
  HOLD_EXTENSION_LIMIT: { status: 409, title: 'The hold was extended as many times as the event allows' },
  HOLD_AT_LONGEST: { status: 409, title: 'The hold already lasts as long as the event allows' },
  ORDER_ALREADY_USED: { status: 409, title: 'The order id already paid for another hold' },
  RESALE_OFF: { status: 409, title: 'This event takes no returns and has no waitlist' },
  RETURN_DEADLINE_PASSED: { status: 409, title: "The organizer's return deadline has passed" },
  SEATS_NOT_IN_ORDER: { status: 422, title: 'A seat to return is not one of the order' },
  ORDER_ALREADY_RETURNED: { status: 409, title: 'The seats were already returned' },
  RETURN_IN_PROGRESS: { status: 409, title: 'These seats were returned already and wait for their refund' },
  PAYMENT_NOT_SETTLED: { status: 409, title: "The order's payment is not settled" },
  OFFER_NOT_FOUND: { status: 404, title: 'No such offer' },
  OFFER_LAPSED: { status: 409, title: 'The offer lapsed' },
  NOT_OFFER_OWNER: { status: 403, title: 'The offer was made to another account' },
  WAITLIST_NOT_OPEN: { status: 409, title: 'Seats are still on sale; the waitlist opens at sell-out' },
  TIER_NOT_FOUND: { status: 422, title: 'No such ticket tier' },
  SALE_CLOSED: { status: 409, title: 'The sale is closed to new holds' },
  CONFIG_CONFLICT: { status: 409, title: 'The configuration change is not allowed' },
  SCHEDULE_CONFLICT: { status: 409, title: 'The scheduled change conflicts with another' },
  SCHEDULE_INVALID: { status: 422, title: 'The scheduled change is in the past or too far ahead' },
  SCHEDULE_NOT_FOUND: { status: 404, title: 'No such scheduled change' },
  ROOM_MAINTENANCE: { status: 503, title: 'The sale is down for maintenance; try again later' },
  ROUTE_INVALID: { status: 400, title: 'A URL pattern or bypass rule is malformed' },
  ROUTE_RESERVED: { status: 400, title: 'A URL pattern would cover the gateway’s own paths' },
  ROUTE_OVERLAP: { status: 400, title: 'Two URL patterns of the event overlap' },
  ROUTE_TAKEN: { status: 409, title: 'Another event already covers this URL pattern' },
  ORIGIN_UNAVAILABLE: { status: 503, title: 'The ticketing site is not answering' },
  ORIGIN_TIMEOUT: { status: 504, title: 'The site did not start answering in time' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  PROOF_OF_WORK_REQUIRED: { status: 401, title: 'This event asks for a proof of work to join' },
  PROOF_OF_WORK_MALFORMED: { status: 400, title: 'The proof of work is malformed' },
  PROOF_OF_WORK_EXPIRED: { status: 401, title: 'The proof-of-work challenge has expired' },
  PROOF_OF_WORK_INVALID: { status: 403, title: 'The proof of work is not valid' },
  PROOF_OF_WORK_OTHER_EVENT: { status: 403, title: 'The proof-of-work challenge is for another event' },
  PROOF_OF_WORK_TOO_EASY: { status: 409, title: 'The proof-of-work challenge is easier than the event asks' },
  PROOF_OF_WORK_USED: { status: 409, title: 'The proof of work was already used' },
  OVERLOADED: { status: 503, title: 'The event is busy; try again shortly' },
  ROOM_TABLE_UNAVAILABLE: { status: 503, title: 'The gateway cannot route requests yet; try again shortly' },
  ENTRY_REQUIRED: { status: 401, title: 'Sign in to join this queue' },
  ENTRY_TOKEN_INVALID: { status: 401, title: 'The entry token is invalid' },
  ENTRY_TOKEN_EXPIRED: { status: 401, title: 'The entry token has expired' },
  ENTRY_TOKEN_OTHER_EVENT: { status: 403, title: 'The entry token is for another event' },
  ENTRY_TOKEN_USED: { status: 409, title: 'The entry token was already used' },
  LANE_NOT_CONFIGURED: { status: 403, title: 'The entry token names a lane this event does not have' },
  SIGN_IN_URL_INVALID: { status: 400, title: 'The sign-in URL is not on the event’s own site' },
  PAGE_TEMPLATE_INVALID: { status: 400, title: 'The waiting page template breaks a rule' },
  CHANNEL_UNKNOWN: { status: 401, title: 'No such sales channel for this event' },
  CHANNEL_REVOKED: { status: 401, title: 'The sales channel key was revoked' },
  CHANNEL_NOT_FOUND: { status: 404, title: 'No such sales channel' },
  NOT_IN_ALLOCATION: { status: 403, title: "The seats are outside the channel's allocations" },
  ALLOCATION_NOT_FOUND: { status: 404, title: 'No such allocation' },
  ALLOCATION_CONFLICT: { status: 409, title: 'The allocation would take seats that are not free' },
  ALLOCATION_IN_USE: { status: 409, title: 'The allocation would give up seats that are held or sold' },
  ALLOCATION_ENDED: { status: 409, title: 'The allocation reached its release time' },
  CURSOR_INVALID: { status: 400, title: 'The feed cursor is malformed' },
  CURSOR_AHEAD: { status: 409, title: 'The feed cursor is ahead of the feed' },
  CURSOR_EXPIRED: { status: 410, title: 'The feed entries after this cursor are gone' },
  INTERNAL: { status: 500, title: 'Internal error' },
};

/** What a GatewayError carries besides its code; every member optional. */
export interface GatewayErrorOptions {
  /** One sentence for the problem body's `detail`, naming the offending field; never secrets. */
  detail?: string;
  /** Seconds for a `Retry-After` header (a whole number). */
  retryAfterS?: number;
  /** Extra members for the problem body (e.g. `seatIds`); never secrets. */
  extra?: Record<string, unknown>;
  /** The failure behind this one (kept as `Error.cause` for debugging); never rendered or logged. */
  cause?: unknown;
}

/**
 * An expected failure of a request; rendered by the app's error handler as problem details with
 * the status ERROR_TABLE gives its code.
 * @example `throw new GatewayError('RATE_LIMITED', { detail: 'too many joins; slow down', retryAfterS: 10 })`
 */
export class GatewayError extends Error {
  readonly detail: string | undefined;
  readonly retryAfterS: number | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    readonly code: ErrorCode,
    options: GatewayErrorOptions = {},
  ) {
    super(options.detail ?? code, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.detail = options.detail;
    this.retryAfterS = options.retryAfterS;
    this.extra = options.extra;
  }
}

/**
 * Renders an error as RFC 9457 problem details (`application/problem+json`) with a stable `code`.
 */
export function problemResponse(err: GatewayError, instance?: string): Response {
  const { status, title } = ERROR_TABLE[err.code];
  const body = {
    type: `urn:waiting-room:problem:${err.code.toLowerCase().replaceAll('_', '-')}`,
    title,
    status,
    code: err.code,
    ...(err.detail ? { detail: err.detail } : {}),
    ...(instance ? { instance } : {}),
    ...err.extra,
  };
  const headers = new Headers({ 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
  if (err.retryAfterS !== undefined) headers.set('retry-after', String(err.retryAfterS));
  return new Response(JSON.stringify(body), { status, headers });
}

/** Exhaustiveness guard for switches over discriminated unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
