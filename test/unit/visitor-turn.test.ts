// The visitor's turn over in-memory ports: who gets a place, when the WaitingRoom is asked, what a
// spent place turns into, what a closed sale answers, and that no admission with too little left
// is handed out.
import { describe, expect, it } from 'vitest';
import type { AdmissionCursor, Place } from '../../contracts/queue/cursor';
import { MIN_USEFUL_ADMISSION_MS } from '../../contracts/queue/lifetimes';
import type { AdmitAnswer, PassAnswer } from '../../contracts/room-answers';
import { testCursor } from '../helpers/cursor';
import { takeTurn, turnBody, type TurnPorts } from '../../src/lib/visitor-turn';

const NOW = 1_800_000_000_000;

function cursor(o: Partial<AdmissionCursor> = {}): AdmissionCursor {
  return testCursor({ fifo: { bucket: 100, idx: 0, shard: 0 }, queue: [[100, 5]], publishedAtMs: NOW, ...o });
}

/** Ports that record every call; `admit` answers from the list, `join` hands out bucket 200, 201, ... */
function ports(c: AdmissionCursor | null, answers: AdmitAnswer[] = [], passes: PassAnswer[] = []) {
  const calls: string[] = [];
  let next = 200;
  const p: TurnPorts = {
    cursor: async () => c,
    join: async (_c, visitorId, replaces) => {
      calls.push(`join ${visitorId}${replaces ? ' again' : ''}`);
      return { bucket: next++, idx: 0, shard: 0 };
    },
    admit: async (_e, visitorId) => {
      calls.push(`admit ${visitorId}`);
      return answers.shift() ?? { kind: 'waiting' };
    },
    passThrough: async (_e, visitorId) => {
      calls.push(`pass ${visitorId}`);
      return passes.shift() ?? { kind: 'queue', reason: 'not_passthrough' };
    },
  };
  return { p, calls };
}

const released: Place = { bucket: 99, idx: 0, shard: 0 };
const ticket = (place: Place) => ({ visitorId: 'v', place });
const req = (t: ReturnType<typeof ticket> | null) => ({ eventId: 'ev', ticket: t, newVisitorId: 'new', nowMs: NOW });

describe('takeTurn under the queueing methods', () => {
  it('reject: the maintenance turn, with no place handed out and no object call, ticket or not', async () => {
    for (const t of [null, ticket(released)]) {
      const { p, calls } = ports(cursor({ method: 'reject' }));
      expect((await takeTurn(p, req(t))).kind).toBe('maintenance');
      expect(calls).toEqual([]);
    }
  });

  it('passthrough: a newcomer the room lets pass is admitted with the pre-queue marker and a new ticket, and joins no line', async () => {
    const { p, calls } = ports(
      cursor({ method: 'passthrough' }),
      [],
      [{ kind: 'admitted', admittedAtMs: NOW, expiresAtMs: NOW + 600_000 }],
    );
    expect(await takeTurn(p, req(null))).toMatchObject({ kind: 'admitted', visitorId: 'new', place: { pre: true }, newTicket: true });
    expect(calls).toEqual(['pass new']);
  });

  it('passthrough: a newcomer the room queues (people wait, or it is full) takes a place at the back', async () => {
    const { p, calls } = ports(cursor({ method: 'passthrough' }), [], [{ kind: 'queue', reason: 'people_waiting' }]);
    expect(await takeTurn(p, req(null))).toMatchObject({ kind: 'waiting', place: { bucket: 200 } });
    expect(calls).toEqual(['pass new', 'join new']);
  });

  it('passthrough: a visitor already in line keeps their place (no pass-through ahead of the line)', async () => {
    const { p, calls } = ports(cursor({ method: 'passthrough' }));
    expect(await takeTurn(p, req(ticket({ bucket: 100, idx: 3, shard: 0 })))).toMatchObject({ kind: 'waiting' });
    expect(calls).toEqual([]);
  });
});

describe('takeTurn', () => {
  it('gives a visitor without a ticket a place and a new ticket, with no admit call while the cursor is behind', async () => {
    const { p, calls } = ports(cursor());
    const turn = await takeTurn(p, req(null));
    expect(turn).toMatchObject({ kind: 'waiting', visitorId: 'new', newTicket: true, requeued: false, place: { bucket: 200 } });
    expect(calls).toEqual(['join new']);
  });

  it('answers a waiting ticket from the cursor alone: no object call', async () => {
    const { p, calls } = ports(cursor());
    const turn = await takeTurn(p, req(ticket({ bucket: 100, idx: 3, shard: 0 })));
    expect(turn).toMatchObject({ kind: 'waiting', newTicket: false, view: { released: false, position: 4 } });
    expect(calls).toEqual([]);
  });

  it('asks the WaitingRoom once the cursor passed the place, and hands out its admission', async () => {
    const admission = { kind: 'admitted', admittedAtMs: NOW, expiresAtMs: NOW + 600_000 } as const;
    const { p, calls } = ports(cursor(), [admission]);
    const turn = await takeTurn(p, req(ticket(released)));
    expect(turn).toMatchObject({ kind: 'admitted', newTicket: false, admission: { admittedAtMs: NOW, expiresAtMs: NOW + 600_000 } });
    expect(calls).toEqual(['admit v']);
  });

  it.each([400, 0, MIN_USEFUL_ADMISSION_MS - 1])('hands out no admission ending %i ms from now (its token would be dead)', async (left) => {
    const { p } = ports(cursor(), [{ kind: 'admitted', admittedAtMs: NOW - 590_000, expiresAtMs: NOW + left }]);
    const turn = await takeTurn(p, req(ticket(released)));
    expect(turn.kind).toBe('waiting');
  });

  it('sends a spent place to the back with a new ticket, and admits the new place at once if it is already released', async () => {
    const c = cursor({ fifo: { bucket: 300, idx: 0, shard: 0 } });
    const { p, calls } = ports(c, [
      { kind: 'requeue', reason: 'ended' },
      { kind: 'admitted', admittedAtMs: NOW, expiresAtMs: NOW + 600_000 },
    ]);
    const turn = await takeTurn(p, req(ticket(released)));
    expect(turn).toMatchObject({ kind: 'admitted', newTicket: true, place: { bucket: 200 } });
    expect(calls).toEqual(['admit v', 'join v again', 'admit v']);
  });

  it('asks at most twice, then waits: a second spent place is not chased in the same request', async () => {
    const c = cursor({ fifo: { bucket: 300, idx: 0, shard: 0 } });
    const { p, calls } = ports(c, [
      { kind: 'requeue', reason: 'lapsed' },
      { kind: 'requeue', reason: 'lapsed' },
    ]);
    const turn = await takeTurn(p, req(ticket(released)));
    expect(turn).toMatchObject({ kind: 'waiting', newTicket: true, requeued: true, place: { bucket: 201 }, view: { released: false } });
    expect(calls).toEqual(['admit v', 'join v again', 'admit v', 'join v again']);
  });

  it('a closed sale gives nobody a place: not a newcomer, not a spent place', async () => {
    const closed = cursor({ mode: 'closed' });
    const newcomer = ports(closed);
    expect(await takeTurn(newcomer.p, req(null))).toMatchObject({ kind: 'closed' });
    expect(newcomer.calls).toEqual([]);
    const spent = ports(closed, [{ kind: 'requeue', reason: 'ended' }]);
    expect(await takeTurn(spent.p, req(ticket(released)))).toMatchObject({ kind: 'closed' });
    expect(spent.calls).toEqual(['admit v']);
  });

  it('an event that does not exist (no cursor, or the room says so) is event_not_found', async () => {
    expect(await takeTurn(ports(null).p, req(null))).toEqual({ kind: 'event_not_found' });
    expect(await takeTurn(ports(cursor(), [{ kind: 'event_not_found' }]).p, req(ticket(released)))).toEqual({ kind: 'event_not_found' });
  });
});

describe('turnBody', () => {
  it('renders each outcome with Retry-After from the poll interval (none once admitted)', async () => {
    const c = cursor({ saleStartsAtMs: NOW - 60_000 });
    expect(turnBody({ kind: 'closed', cursor: c })).toEqual({
      body: {
        state: 'closed',
        eventName: 'Ev',
        policy: 'fifo',
        position: null,
        ahead: null,
        estimatedWaitSeconds: null,
        pollAfterMs: 15_000,
        saleStartsAt: new Date(NOW - 60_000).toISOString(),
        commitment: null,
        entrantId: null,
        lane: null,
      },
      retryAfterS: 15,
    });
    const admitted = await takeTurn(
      ports(c, [{ kind: 'admitted', admittedAtMs: NOW, expiresAtMs: NOW + 600_000 }]).p,
      req(ticket(released)),
    );
    if (admitted.kind === 'event_not_found' || admitted.kind === 'maintenance') throw new Error('unexpected');
    expect(turnBody(admitted)).toMatchObject({ body: { state: 'admitted', estimatedWaitSeconds: 0, pollAfterMs: 0 }, retryAfterS: null });
    const waiting = await takeTurn(ports(c).p, req(ticket({ bucket: 100, idx: 3, shard: 0 })));
    if (waiting.kind !== 'waiting') throw new Error('unexpected');
    expect(turnBody(waiting)).toMatchObject({
      body: { state: 'waiting', position: 4, entrantId: null, lane: null },
      retryAfterS: Math.ceil(waiting.view.pollAfterMs / 1000),
    });
  });

  it('tells a lottery visitor their own entrant id, and a lane visitor their lane', async () => {
    const lottery = cursor({ policy: 'random', saleStartsAtMs: NOW - 60_000 });
    const waiting = await takeTurn(ports(lottery).p, req(ticket({ bucket: 100, idx: 3, shard: 0 })));
    if (waiting.kind !== 'waiting') throw new Error('unexpected');
    expect(turnBody(waiting).body).toMatchObject({ entrantId: waiting.visitorId, lane: null });
    const lane = await takeTurn(
      ports(cursor({ saleStartsAtMs: NOW - 60_000 })).p,
      req(ticket({ bucket: 100, idx: 3, shard: 0, lane: 'presale' })),
    );
    if (lane.kind !== 'waiting') throw new Error('unexpected');
    expect(turnBody(lane).body).toMatchObject({ entrantId: null, lane: 'presale' });
  });
});
