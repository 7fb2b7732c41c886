// The edge's one place that turns Durable Object answers (contracts/*-answers.ts) into results or
// GatewayErrors: every `kind` an object can answer is mapped here, and the compiler checks each
// switch is exhaustive.
import type { EventNotFound } from '../../contracts/answers';
import type { HoldAnswer, HoldChangeAnswer, HoldExtendAnswer, HoldExtensionView, HoldView } from '../../contracts/inventory-answers';
import type { FixedRateAnswer, HealthAnswer, ModeAnswer } from '../../contracts/room-answers';
import type { RoomMode } from '../../contracts/queue/queue-policy';
import { GatewayError, assertNever } from './errors';

/**
 * The answer without its `event_not_found` case.
 * @throws GatewayError EVENT_NOT_FOUND (404) for an event nobody configured
 */
export function requireEvent<A extends { kind: string }>(answer: A | EventNotFound, eventId: string): Exclude<A, EventNotFound> {
  if (answer.kind === 'event_not_found') throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  return answer as Exclude<A, EventNotFound>;
}

/** `pause`, `resume`, `close`. @throws GatewayError EVENT_NOT_FOUND (404) */
export function modeResult(answer: ModeAnswer, eventId: string): RoomMode {
  return requireEvent(answer, eventId).previous;
}

/**
 * `setFixedRate`: the fixed rate before and whether it changed.
 * @throws GatewayError EVENT_NOT_FOUND (404); INVALID_REQUEST (400) over the event's maximum
 */
export function fixedRateResult(answer: FixedRateAnswer, eventId: string): { previous: number | null; changed: boolean } {
  const found = requireEvent(answer, eventId);
  switch (found.kind) {
    case 'ok':
      return { previous: found.previous, changed: found.changed };
    case 'above_maximum':
      throw new GatewayError('INVALID_REQUEST', {
        detail: `fixedPerMinute must not exceed the event's releaseRatePerMinute (${found.maxPerMinute}/min)`,
      });
    default:
      assertNever(found);
  }
}

/** `recordHealth`. @throws GatewayError EVENT_NOT_FOUND (404); STALE_REPORT (409) for a report signed before the last one */
export function healthResult(answer: HealthAnswer, eventId: string): void {
  const found = requireEvent(answer, eventId);
  switch (found.kind) {
    case 'ok':
      return;
    case 'out_of_order':
      throw new GatewayError('STALE_REPORT', { detail: 'a health report signed later was already accepted' });
    default:
      assertNever(found);
  }
}

/** The JSON shape of a hold in responses; times as ISO 8601, prices in minor units. */
export function holdBody(hold: HoldView) {
  return {
    holdId: hold.holdId,
    status: hold.status,
    seatIds: hold.seatIds,
    tier: hold.tier,
    quantity: hold.quantity,
    priceMinor: hold.priceMinor,
    currency: hold.currency,
    expiresAt: new Date(hold.expiresAtMs).toISOString(),
    orderId: hold.orderId,
  };
}

/**
 * Reading or changing one hold.
 * @throws GatewayError HOLD_NOT_FOUND (404); the refusal's own code (403/409) with the hold in the body
 */
export function holdChangeResult(answer: HoldChangeAnswer): HoldView {
  switch (answer.kind) {
    case 'ok':
      return answer.hold;
    case 'not_found':
      throw new GatewayError('HOLD_NOT_FOUND');
    case 'refused':
      throw new GatewayError(answer.code, { detail: answer.detail, extra: { hold: holdBody(answer.hold) } });
    default:
      return assertNever(answer);
  }
}

/**
 * Placing a hold.
 * @returns the hold, `replayed` when the idempotency key and request match an earlier success, and
 *   the event's payment grace in ms (0 from an object that does not say)
 * @throws GatewayError EVENT_NOT_FOUND, INVALID_REQUEST, SEAT_NOT_FOUND, TIER_NOT_FOUND,
 *   SEATS_UNAVAILABLE, ACCOUNT_LIMIT, SALE_CLOSED, IDEMPOTENCY_KEY_REUSED, RATE_LIMITED and OVERLOADED (with Retry-After),
 *   NOT_IN_ALLOCATION (a sales channel's hold outside its allocations)
 */
export function holdResult(
  answer: HoldAnswer,
  eventId: string,
): { hold: HoldView; replayed: boolean; paymentGraceMs: number; extension?: HoldExtensionView } {
  const found = requireEvent(answer, eventId);
  switch (found.kind) {
    case 'held':
      return {
        hold: found.hold,
        replayed: found.replayed,
        paymentGraceMs: found.paymentGraceMs ?? 0,
        ...(found.extension ? { extension: found.extension } : {}),
      };
    case 'invalid':
      throw new GatewayError('INVALID_REQUEST', { detail: found.detail });
    case 'unknown_seats':
      throw new GatewayError('SEAT_NOT_FOUND', { detail: `no such seats: ${found.seatIds.join(', ')}`, extra: { seatIds: found.seatIds } });
    case 'unknown_tier':
      throw new GatewayError('TIER_NOT_FOUND', { detail: `no tier "${found.tier}"` });
    case 'unavailable':
      throw found.remaining !== undefined
        ? new GatewayError('SEATS_UNAVAILABLE', {
            detail: `only ${found.remaining} left in this tier; nothing was held`,
            extra: { remaining: found.remaining },
          })
        : new GatewayError('SEATS_UNAVAILABLE', {
            detail: `not available: ${found.seatIds.join(', ')}; nothing was held`,
            extra: { seatIds: found.seatIds },
          });
    case 'account_limit':
      throw new GatewayError('ACCOUNT_LIMIT', { detail: `at most ${found.limit} seats per account; you have ${found.owned}` });
    case 'sales_closed':
      throw new GatewayError('SALE_CLOSED', {
        detail: 'the organizer closed this sale: no new holds; holds already made can still be paid',
      });
    case 'idempotency_conflict':
      throw new GatewayError('IDEMPOTENCY_KEY_REUSED', { detail: 'this Idempotency-Key was used with another request' });
    case 'rate_limited':
      throw new GatewayError('RATE_LIMITED', {
        detail: 'too many hold requests from this account; slow down',
        retryAfterS: found.retryAfterS,
      });
    case 'not_allocated':
      throw found.tier !== undefined
        ? new GatewayError('NOT_IN_ALLOCATION', { detail: `the channel has no live allocation of tier "${found.tier}"; nothing was held` })
        : new GatewayError('NOT_IN_ALLOCATION', {
            detail: `not in the channel's live allocations: ${found.seatIds.join(', ')}; nothing was held`,
            extra: { seatIds: found.seatIds },
          });
    case 'retry_later':
      throw new GatewayError('OVERLOADED', {
        detail: 'the hold could not be placed in time; nothing was held; retry',
        retryAfterS: found.retryAfterS,
      });
    default:
      return assertNever(found);
  }
}

/** The JSON shape of a hold's extensions in responses; the latest deadline as ISO 8601 (null: the event allows none). */
export function extensionBody(extension: HoldExtensionView) {
  return {
    used: extension.used,
    max: extension.max,
    latestExpiresAt: extension.latestExpiresAtMs === null ? null : new Date(extension.latestExpiresAtMs).toISOString(),
  };
}

/**
 * Extending one hold.
 * @throws GatewayError HOLD_NOT_FOUND (404); the refusal's own code (403/409) with the hold and its extensions in the body
 */
export function holdExtendResult(answer: HoldExtendAnswer): Extract<HoldExtendAnswer, { kind: 'extended' }> {
  switch (answer.kind) {
    case 'extended':
      return answer;
    case 'not_found':
      throw new GatewayError('HOLD_NOT_FOUND');
    case 'refused':
      throw new GatewayError(answer.code, {
        detail: answer.detail,
        extra: { hold: holdBody(answer.hold), extension: extensionBody(answer.extension) },
      });
    default:
      return assertNever(answer);
  }
}
