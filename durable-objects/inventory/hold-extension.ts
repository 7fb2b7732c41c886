// Extending a seat hold: the pure rule of whether a buyer may have more time, and how much.
import type { HoldExtensionRules } from '../../contracts/event-config';
import type { HoldExtensionRefusal, HoldExtensionView, HoldRefusal } from '../../contracts/inventory-answers';
import { effectiveStatus, type HoldStatus } from './hold-policy';

/** The parts of a hold an extension decision reads. Times are epoch ms on the Inventory's clock. */
export interface ExtensionFacts {
  account: string;
  status: HoldStatus;
  /** The hold's deadline now, epoch ms. */
  expiresAtMs: number;
  /** When the hold was placed, epoch ms: the total cap counts from here. */
  createdAtMs: number;
  /** Extensions granted to this hold so far. */
  extensions: number;
  /** The deadline an earlier extension under the same idempotency key gave the hold, epoch ms; null: none did. */
  replayOfMs: number | null;
}

/** `decideExtension` outcome: a replay of the earlier answer, the new deadline and count, or a refusal. */
export type ExtensionDecision =
  | { kind: 'replay'; expiresAtMs: number }
  | { kind: 'extend'; expiresAtMs: number; extensions: number }
  | { kind: 'refused'; code: HoldRefusal | HoldExtensionRefusal; detail: string };

/** The latest deadline any extension may give a hold placed at `createdAtMs`, epoch ms. */
export function latestDeadline(rules: HoldExtensionRules, createdAtMs: number): number {
  return createdAtMs + rules.maxTotalMs;
}

/**
 * A hold's extensions as callers see them: `used` so far, the event's `max` (0 without
 * extensions) and the latest deadline any extension may give it (null without extensions).
 * @param createdAtMs when the hold was placed, epoch ms
 */
export function extensionView(rules: HoldExtensionRules | null, used: number, createdAtMs: number): HoldExtensionView {
  return { used, max: rules?.maxExtensions ?? 0, latestExpiresAtMs: rules ? latestDeadline(rules, createdAtMs) : null };
}

/**
 * May this hold have more time, and until when? In order:
 * - `account` (null: the origin acting without naming one) must own the hold;
 * - the same idempotency key as an earlier extension replays it (nothing changes, whatever the
 *   hold's state now, so a retry after a lost answer never extends twice);
 * - the organizer must allow extensions (`rules` not null);
 * - the hold must be HELD and before its deadline, judged at `nowMs` (`effectiveStatus`): an
 *   expired, released or sold hold is never extended (its seats may be someone else's by now), and a
 *   hold in payment has the payment grace, not the buyer's clock, as its deadline;
 * - fewer than `maxExtensions` extensions so far;
 * - the deadline not yet at `createdAtMs + maxTotalMs`.
 * The new deadline is `min(expiresAtMs + extensionMs, createdAtMs + maxTotalMs)`: later than the
 * current one, never past the cap.
 *
 * @param rules the event's bounds, ms; null when the organizer allows no extensions
 * @param nowMs the Inventory object's clock, epoch ms
 */
export function decideExtension(
  hold: ExtensionFacts,
  account: string | null,
  rules: HoldExtensionRules | null,
  nowMs: number,
): ExtensionDecision {
  const no = (code: HoldRefusal | HoldExtensionRefusal, detail: string): ExtensionDecision => ({ kind: 'refused', code, detail });
  if (account !== null && account !== hold.account) return no('NOT_HOLD_OWNER', 'this hold belongs to another account');
  if (hold.replayOfMs !== null) return { kind: 'replay', expiresAtMs: hold.replayOfMs };
  if (!rules) return no('HOLD_EXTENSIONS_OFF', 'this event does not allow holds to be extended');
  const status = effectiveStatus(hold, nowMs);
  if (status === 'EXPIRED') return no('HOLD_EXPIRED', 'the hold already expired; its seats are free');
  if (status === 'PAYMENT_PENDING' || status === 'NEEDS_RECONCILIATION') {
    return no('PAYMENT_IN_PROGRESS', 'payment has started; the hold waits for its answer and needs no more time');
  }
  if (status !== 'HELD') return no('HOLD_NOT_ACTIVE', `a ${status} hold cannot be extended`);
  if (hold.extensions >= rules.maxExtensions) {
    return no('HOLD_EXTENSION_LIMIT', `the hold was already extended ${hold.extensions} of ${rules.maxExtensions} times`);
  }
  const cap = latestDeadline(rules, hold.createdAtMs);
  if (hold.expiresAtMs >= cap) {
    return no('HOLD_AT_LONGEST', `the hold already lasts the longest the event allows (${rules.maxTotalMs / 1000} s)`);
  }
  return { kind: 'extend', expiresAtMs: Math.min(hold.expiresAtMs + rules.extensionMs, cap), extensions: hold.extensions + 1 };
}
