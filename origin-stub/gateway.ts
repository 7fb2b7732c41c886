// The saga's inventory port over the origin SDK's GatewayClient (signed hold calls, timeouts, retries).
import type { GatewayClient, Hold, HoldResult } from '../origin-sdk/src/index';
import type { HoldAnswer, HoldInfo, InventoryClient } from './order';

/** A page size for reconciliation's hold listing (the gateway's maximum). */
const LIST_LIMIT = 500;

function holdInfo(h: Hold): HoldInfo {
  return {
    holdId: h.holdId,
    status: h.status,
    account: h.account ?? '',
    seatIds: h.seatIds,
    tier: h.tier,
    quantity: h.quantity,
    priceMinor: h.priceMinor,
    currency: h.currency || 'EUR',
    orderId: h.orderId,
  };
}

/** The SDK's typed result as the saga's answer: a refusal keeps its code and the hold when the gateway sent it. */
function holdAnswer(r: HoldResult): HoldAnswer {
  if (r.kind === 'ok') return { kind: 'ok', hold: holdInfo(r.hold) };
  if (r.kind === 'refused') return { kind: 'refused', code: r.code, hold: r.hold ? holdInfo(r.hold) : null };
  return { kind: 'no_answer' };
}

/** The account the origin vouches for; none when the saga has none (the gateway then checks no owner). */
const vouch = (account: string) => (account ? { account } : {});

/** `InventoryClient` (the saga's port) over a GatewayClient of this event. */
export function inventoryClient(gateway: () => GatewayClient): InventoryClient {
  return {
    getHold: async (holdId) => holdAnswer(await gateway().getHold(holdId)),
    startPayment: async (holdId, account) => holdAnswer(await gateway().paymentPending(holdId, vouch(account))),
    confirm: async (holdId, orderId, amountMinor, account) =>
      holdAnswer(await gateway().confirm(holdId, { orderId, amountMinor, ...vouch(account) })),
    release: async (holdId, account) => holdAnswer(await gateway().release(holdId, vouch(account))),
    paymentHolds: async (after) => {
      const r = await gateway().listHolds({ after, limit: LIST_LIMIT });
      return r.kind === 'ok' ? { kind: 'ok', holds: r.holds.map(holdInfo), next: r.next } : { kind: 'no_answer' };
    },
  };
}
