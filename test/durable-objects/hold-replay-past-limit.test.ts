// Regression: the per-account hold limiter counted before the idempotency lookup: once an account has made
// HOLDS_PER_WINDOW attempts (refused ones included), retrying a hold that *succeeded* with its own
// Idempotency-Key (the answer was lost) is refused RATE_LIMITED instead of replaying the hold.
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import { HOLDS_PER_WINDOW } from '../../durable-objects/inventory/inventory';
import { createEvent, freshEventId } from '../helpers/client';

it('a retried successful hold replays even after the account hit the attempt limit', async () => {
  const eventId = freshEventId();
  expect((await createEvent(eventId)).status).toBe(201);
  const inv = env.INVENTORY.getByName(eventId);
  const first = await inv.hold('acct', { seatIds: ['A1'] }, 'key-1');
  expect(first.kind).toBe('held');
  // Seats the account tried and lost to others (refused, nothing stored).
  for (let i = 1; i < HOLDS_PER_WINDOW; i++) await inv.hold('acct', { seatIds: ['ZZ99'] }, `miss-${i}`);
  const retry = await inv.hold('acct', { seatIds: ['A1'] }, 'key-1');
  // Expected: the first hold replayed. Observed: rate_limited.
  expect(retry).toMatchObject({ kind: 'held', replayed: true });
});
