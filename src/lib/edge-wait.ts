// Admitted requests' waits at the edge for a place under the origin limit (origin-limit.ts), tallied
// per isolate and event and sent to the event's WaitingRoom: the release law judges the latency a
// visitor sees, the origin's p99 plus this wait, because the origin's own report cannot show a
// queue that forms in front of it.
import { callDurableObject } from './do-call';
import { EdgeWaitTally } from './origin-limit';

const tallies = new Map<string, EdgeWaitTally>();

/**
 * The `onEdgeWait` of proxyToOrigin for an admitted request of `eventId`: counts its wait and, when
 * a signal is due, sends it to the event's WaitingRoom after the response (`waitUntil`); a failed
 * send is dropped (the next interval sends again).
 */
export function edgeWaits(
  env: Pick<Env, 'WAITING_ROOM'>,
  ctx: Pick<ExecutionContext, 'waitUntil'>,
  eventId: string,
): (waitMs: number) => void {
  return (waitMs) => {
    let tally = tallies.get(eventId);
    if (!tally) tallies.set(eventId, (tally = new EdgeWaitTally()));
    const signal = tally.record(waitMs, Date.now());
    if (!signal) return;
    ctx.waitUntil(
      callDurableObject(() => env.WAITING_ROOM.getByName(eventId).recordEdgeWait(signal), {
        idempotent: false,
        name: 'waitingRoom.recordEdgeWait',
        eventId,
      }).catch(() => {}),
    );
  };
}
