// Admitted requests' waits at the edge for a place under the origin limit (origin-limit.ts), tallied
// per isolate and event and sent to the event's WaitingRoom: the release law judges the latency a
// visitor sees, the origin's p99 plus this wait, because the origin's own report cannot show a
// queue that forms in front of it.
import { callDurableObject } from './do-call';
import { EdgeWaitTally, type GateAsk } from './origin-limit';

const tallies = new Map<string, EdgeWaitTally>();

/**
 * The origin limit's ask for an admitted request of `visitorId` in `eventId` (proxyToOrigin's
 * `gate`): its wait is counted and, when a signal is due, sent to the event's WaitingRoom after the
 * response (`waitUntil`); a failed send is dropped (the next interval sends again).
 */
export function edgeAsk(
  env: Pick<Env, 'WAITING_ROOM'>,
  ctx: Pick<ExecutionContext, 'waitUntil'>,
  eventId: string,
  visitorId: string,
): GateAsk {
  const onWait = (waitMs: number) => {
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
  return { visitorId, onWait };
}
