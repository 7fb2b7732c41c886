// Regression: an admission that has ended must send its place to the back. `admit` only recognises an
// ended place when it is the one stored in the visitor's single wr_admissions row; once the
// visitor's next place has been admitted (the row now names that place), the old ticket's place is
// judged afresh, found "released within the idle timeout", and admitted again: no queueing.
import { expect, it } from 'vitest';
import type { FifoPlace } from '../../contracts/queue/cursor';
import { eventConfigInput, splitConfig } from '../../contracts/event-config';
import { freshEventId } from '../helpers/client';
import { QueueHarness } from '../helpers/queue';

it('an old ticket whose admission ended is not admitted again after the visitor was re-admitted with a new place', async () => {
  const eventId = freshEventId();
  const q = new QueueHarness(eventId);
  const input = eventConfigInput.parse({
    releaseRatePerMinute: 600,
    minReleaseRatePerMinute: 600,
    maxActiveVisitors: 100,
    seats: 10,
    admissionTtlSeconds: 30,
    idleTimeoutSeconds: 600,
  });
  await q.room.configure(splitConfig(eventId, input).queue);
  const t0 = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await q.at(t0);
  const p1 = (await q.join('v')) as FifoPlace;
  await q.tick(t0 + 1000);
  expect((await q.poll('v')).kind).toBe('admitted');
  // The 30 s admission ends; the next poll sends the visitor to the back with a new place P2.
  await q.tick(t0 + 40_000);
  expect((await q.poll('v')).kind).toBe('requeued');
  await q.tick(t0 + 41_000);
  expect((await q.poll('v')).kind).toBe('admitted'); // P2 admitted
  // P2's admission ends too.
  await q.tick(t0 + 80_000);
  // The visitor replays the first ticket (P1), whose admission ended 50 s ago.
  const again = await q.room.admit('v', p1);
  // Expected: requeue (ended). Observed: a fresh admission.
  expect(again.kind).toBe('requeue');
});
