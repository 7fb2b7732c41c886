// The WaitingRoom's list of sessions ended before their `exp` (ended-store.ts), as its cursor
// publishes it: a leave and a re-admission list the old session, each entry stays until that
// session's `exp` and the tick after it forgets it, and nobody else is ever listed.
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { MIN_USEFUL_ADMISSION_MS } from '../../contracts/queue/lifetimes';
import { sessionTag } from '../../contracts/queue/ended-sessions';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

const TTL_MS = 60_000;

/** The stored admission of each visitor: its session id (admission time) and end, epoch ms. */
async function sessions(q: QueueHarness): Promise<Map<string, { sessionId: string; expiresAtMs: number; state: string }>> {
  const rows = await runInDurableObject(q.room, (_obj, state) =>
    state.storage.sql
      .exec<{ visitor_id: string; admitted_at: number; expires_at: number; state: string }>('SELECT * FROM wr_admissions')
      .toArray(),
  );
  return new Map(rows.map((r) => [r.visitor_id, { sessionId: String(r.admitted_at), expiresAtMs: r.expires_at, state: r.state }]));
}

/** A room with `ids` joined at the next whole second and admitted a second later. */
async function admittedRoom(ids: string[]): Promise<QueueHarness> {
  const q = new QueueHarness(freshEventId('ended'));
  await q.room.configure(queueConfig(q.eventId, { admissionTtlSeconds: TTL_MS / 1000 }));
  const t0 = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await q.at(t0);
  for (const id of ids) await q.join(id);
  await q.tick(t0 + 1_000);
  for (const id of ids) expect((await q.poll(id)).kind).toBe('admitted');
  return q;
}

describe('ended sessions in the cursor', () => {
  it('lists a left session until its exp, and the tick after the exp forgets it', async () => {
    const q = await admittedRoom(['a', 'b', 'c']);
    expect((await q.cursor()).endedSessions).toEqual({ tags: [], complete: true });
    const a = (await sessions(q)).get('a')!;
    expect(await q.room.leave('a')).toBe(true);
    // Leaving twice lists it once.
    expect(await q.room.leave('a')).toBe(false);
    expect((await q.cursor()).endedSessions).toEqual({ tags: [sessionTag('a', a.sessionId)], complete: true });
    // 1 ms before its exp it is still listed; from its exp on the token's own expiry ends it.
    await q.at(a.expiresAtMs - 1);
    expect((await q.cursor()).endedSessions!.tags).toEqual([sessionTag('a', a.sessionId)]);
    await q.at(a.expiresAtMs);
    expect((await q.cursor()).endedSessions!.tags).toEqual([]);
    await q.tick(a.expiresAtMs + 1_000);
    const stored = await runInDurableObject(q.room, (_obj, state) => state.storage.sql.exec('SELECT * FROM wr_ended').toArray().length);
    expect(stored).toBe(0);
  });

  it('lists the old session when a visitor is admitted again while it had time left', async () => {
    const q = await admittedRoom(['a', 'b']);
    const old = (await sessions(q)).get('a')!;
    // Too little left to hand out: the visitor goes to the back of the line (the old session
    // still runs to its exp), and is admitted again from there.
    const late = old.expiresAtMs - MIN_USEFUL_ADMISSION_MS + 1;
    await q.at(late);
    expect((await q.poll('a')).kind).toBe('requeued');
    expect((await q.cursor()).endedSessions!.tags).toEqual([]);
    await q.tick(late + 1_000);
    expect((await q.poll('a')).kind).toBe('admitted');
    const renewed = (await sessions(q)).get('a')!;
    expect(renewed.sessionId).not.toBe(old.sessionId);
    expect((await q.cursor()).endedSessions).toEqual({ tags: [sessionTag('a', old.sessionId)], complete: true });
    // The new session and the other visitor's are not listed.
    expect((await q.cursor()).endedSessions!.tags).not.toContain(sessionTag('a', renewed.sessionId));
    expect((await q.cursor()).endedSessions!.tags).not.toContain(sessionTag('b', (await sessions(q)).get('b')!.sessionId));
  });

  it('does not list a session left after its exp (its token has expired anyway)', async () => {
    const q = await admittedRoom(['a']);
    const a = (await sessions(q)).get('a')!;
    await q.at(a.expiresAtMs + 1);
    await q.room.leave('a');
    expect((await q.cursor()).endedSessions).toEqual({ tags: [], complete: true });
  });
});
