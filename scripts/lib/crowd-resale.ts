// `npm run crowd -- --resale 0.1`: after the sale, a share of the sold orders is returned through the
// origin API and resold to waitlisted accounts (accept, payment-pending, confirm at the offer's
// price), one return at a time, timing each from the return to the confirmed resale; then the
// inventory's consistency, returns and refunds are read back.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ResaleClient, type Hold } from '../../origin-sdk/src/index.ts';
import { ROOT, getEvent, type DevServer } from './dev-server.ts';
import { parseDevVars } from './dev-secrets.ts';

/** What the resale round did and measured. */
export interface ResaleRound {
  /** Why the round did not run (no secret, the event not sold out), or null. */
  skipped: string | null;
  /** Orders returned (each after its waitlisted account joined). */
  returned: number;
  /**
   * Chosen orders not returned because the waitlist had closed: holds left unpaid at the sale's
   * end expire during the round and put their seats back on open sale (WAITLIST_NOT_OPEN).
   */
  waitlistClosed: number;
  resold: number;
  /** Per resold return: ms from the return call to the confirmed resale. */
  returnToResaleMs: number[];
  refunds: number;
  consistent: boolean;
}

/** The admin API's numbers the round reads. */
interface Numbers {
  inventory: { seats: { available: number }; consistency: Record<string, number>; resale?: { refunds: number } };
}

/** Runs the round on `eventId` (see the file comment); `share` of the sold orders, at least one. */
export async function resaleRound(server: Pick<DevServer, 'url' | 'adminToken'>, eventId: string, share: number): Promise<ResaleRound> {
  const empty = { returned: 0, waitlistClosed: 0, resold: 0, returnToResaleMs: [], refunds: 0, consistent: true };
  const secret = existsSync(join(ROOT, '.dev.vars')) ? parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ORIGIN_HMAC_SECRET : '';
  if (!secret) return { ...empty, skipped: 'no ORIGIN_HMAC_SECRET in .dev.vars' };
  const client = new ResaleClient({ gatewayUrl: server.url, eventId, secret });
  const sold: Hold[] = [];
  for (let after: string | null = ''; after !== null;) {
    const page = await client.listHolds({ after, limit: 500 });
    if (page.kind !== 'ok') return { ...empty, skipped: `listing holds: ${page.kind}` };
    sold.push(...page.holds.filter((h) => h.status === 'SOLD' && h.seatIds.length > 0));
    after = page.next;
  }
  const before = await getEvent<Numbers>(server, eventId);
  if (before.inventory.seats.available > 0) return { ...empty, skipped: `not sold out (${before.inventory.seats.available} seats left)` };
  const chosen = sold.slice(0, Math.max(1, Math.round(sold.length * share)));
  const times: number[] = [];
  let resold = 0;
  let returned = 0;
  let waitlistClosed = 0;
  for (const [i, order] of chosen.entries()) {
    const account = `resale-${i}`;
    const joined = await client.joinWaitlist(account, order.seatIds.length);
    if (joined.kind === 'refused' && joined.code === 'WAITLIST_NOT_OPEN') waitlistClosed++;
    if (joined.kind !== 'ok') continue;
    const t0 = performance.now();
    const ret = await client.returnSeats(order.holdId, { idempotencyKey: `crowd-return-${order.holdId}` });
    if (ret.kind !== 'ok') continue;
    returned++;
    const offerId = await offerOf(client, account);
    if (!offerId) continue;
    const taken = await client.acceptOffer(offerId, account);
    if (taken.kind !== 'ok') continue;
    await client.paymentPending(offerId);
    const paid = await client.confirm(offerId, { orderId: `crowd-resale-${i}`, amountMinor: taken.value.priceMinor });
    if (paid.kind !== 'ok') continue;
    times.push(performance.now() - t0);
    resold++;
  }
  const end = await getEvent<Numbers>(server, eventId);
  const c = end.inventory.consistency;
  const counts = end.inventory.resale;
  return {
    skipped: null,
    returned,
    waitlistClosed,
    resold,
    returnToResaleMs: times,
    refunds: counts?.refunds ?? 0,
    consistent: Object.values(c).every((v) => v === 0),
  };
}

/** The hold id of the account's live offer, from the waitlist. */
async function offerOf(client: ResaleClient, account: string): Promise<string | null> {
  for (let after = 0; ;) {
    const page = await client.waitlist({ after, limit: 500 });
    if (page.kind !== 'ok') return null;
    const entry = page.value.entries.find((e) => e.account === account && e.state === 'OFFERED');
    if (entry) return entry.offerHoldId;
    if (page.value.next === null) return null;
    after = page.value.next;
  }
}
