// The room's per-minute history: written by its alarm once a minute with the minute's figures,
// pruned after 30 days, served over a range through the organizer API, and small per minute.
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { HistoryAnswer } from '../../contracts/history';
import { HISTORY_KEEP_MS, MINUTE_MS } from '../../durable-objects/waiting-room/history-policy';
import { HistoryStore } from '../../durable-objects/waiting-room/history-store';
import { Sql } from '../../durable-objects/shared/sql';
import { organizer } from '../helpers/channels';
import { createEvent, freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

const rows = (q: QueueHarness) =>
  runInDurableObject(q.room, (_o, s) =>
    s.storage.sql.exec<{ at: number; admitted: number; waiting: number; active: number }>('SELECT * FROM wr_history ORDER BY at').toArray(),
  );

async function room(): Promise<{ q: QueueHarness; t0: number }> {
  const eventId = freshEventId('hist');
  const q = new QueueHarness(eventId);
  await q.room.configure(queueConfig(eventId, { releaseRatePerMinute: 600, minReleaseRatePerMinute: 600, maxActiveVisitors: 100 }));
  const t0 = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  await q.at(t0);
  return { q, t0 };
}

describe('the per-minute history', () => {
  it('is written by the first tick of each minute with the minute before: admissions, their time in queue, levels', async () => {
    const { q, t0 } = await room();
    await q.tick(t0 + 1_000);
    const before = await rows(q);
    expect(before.map((r) => r.at)).toEqual([t0 - MINUTE_MS]);
    for (const v of ['a', 'b', 'c']) await q.join(v);
    await q.tick(t0 + 2_000);
    for (const v of ['a', 'b', 'c']) expect((await q.poll(v)).kind).toBe('admitted');
    await q.tick(t0 + 30_000); // same minute: no row
    expect(await rows(q)).toHaveLength(1);
    await q.tick(t0 + MINUTE_MS + 1_000);
    const [, minute] = await rows(q);
    expect(minute).toMatchObject({ at: t0, admitted: 3, active: 3, waiting: 0 });
    const answer = (await q.room.historyBetween(t0 - MINUTE_MS, t0 + MINUTE_MS)) as HistoryAnswer;
    if (answer?.kind !== 'ok') throw new Error('no history');
    expect(answer.stepMs).toBe(MINUTE_MS);
    const p = answer.points.find((x) => x.atMs === t0)!;
    expect([p.admitted, p.released, p.queueP50Ms !== null, p.binds]).toEqual([3, 3, true, expect.any(String)]);
  });

  it('groups a long range into steps: one point per step, sums and levels over it, what bound at its last minute', async () => {
    const { q, t0 } = await room();
    // Ten minutes, admitted 1..10, waiting 10..1, the last two bound by a pause.
    await runInDurableObject(q.room, (_o, s) => {
      for (let i = 0; i < 10; i++)
        s.storage.sql.exec(
          `INSERT INTO wr_history (at, waiting, admitted, active, released, departures, rate, active_limit, binds) VALUES (?, ?, ?, 0, 0, 0, 60, 10, ?)`,
          t0 - (10 - i) * MINUTE_MS,
          10 - i,
          i + 1,
          i >= 8 ? 'paused' : 'queue_empty',
        );
    });
    const store = await runInDurableObject(q.room, (_o, s) =>
      new HistoryStore(new Sql(s.storage.sql)).range(t0 - 10 * MINUTE_MS, t0, 5 * MINUTE_MS),
    );
    expect(store.map((p) => [p.atMs, p.admitted, p.waiting, p.binds])).toEqual([
      [t0 - 10 * MINUTE_MS, 1 + 2 + 3 + 4 + 5, 10, 'queue_empty'],
      [t0 - 5 * MINUTE_MS, 6 + 7 + 8 + 9 + 10, 5, 'paused'],
    ]);
  });

  it('drops rows older than 30 days when it writes', async () => {
    const { q, t0 } = await room();
    await runInDurableObject(q.room, (_o, s) =>
      s.storage.sql.exec(
        `INSERT INTO wr_history (at, waiting, admitted, active, released, departures, rate, active_limit, binds) VALUES (?, 0, 0, 0, 0, 0, 1, 1, 'x')`,
        t0 - HISTORY_KEEP_MS - 2 * MINUTE_MS,
      ),
    );
    await q.tick(t0 + 1_000);
    expect((await rows(q)).map((r) => r.at)).toEqual([t0 - MINUTE_MS]);
  });

  it('costs a small row per minute: 30 days of minutes measured in the database', async () => {
    const { q, t0 } = await room();
    const measured = await runInDurableObject(q.room, (_o, s) => {
      const history = new HistoryStore(new Sql(s.storage.sql));
      const sizeBefore = s.storage.sql.databaseSize;
      const minutes = 30 * 24 * 60;
      for (let i = 0; i < minutes; i++)
        history.write(
          {
            atMs: t0 - HISTORY_KEEP_MS + (i + 1) * MINUTE_MS,
            waiting: 123_456,
            admitted: 1_200,
            active: 9_876,
            released: 1_250,
            departures: 1_100,
            queueP50Ms: 754_000,
            queueP90Ms: 1_912_000,
            originP99Ms: 412.5,
            originErrorRate: 0.0123,
            releaseRatePerMinute: 1_200,
            activeLimit: 10_000,
            binds: 'release_rate',
            refusedProofOfWork: 250,
            refusedEntryToken: 12,
            refusedRateLimit: 40,
            refusedOther: 3,
          },
          t0 - HISTORY_KEEP_MS,
        );
      const count = s.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM wr_history').one().n;
      return { count, bytes: s.storage.sql.databaseSize - sizeBefore };
    });
    console.log(
      `history: ${measured.count} rows (30 days), ${measured.bytes} bytes, ${(measured.bytes / measured.count).toFixed(1)} bytes per minute`,
    );
    expect(measured.count).toBe(30 * 24 * 60);
    expect(measured.bytes / measured.count).toBeLessThan(200);
  });

  it('is served by the organizer API over a range, and a range past the 30 days kept is refused with 400', async () => {
    const eventId = freshEventId('hist');
    expect((await createEvent(eventId)).status).toBe(201);
    const ok = await organizer<{ stepSeconds: number; points: unknown[] }>('GET', `/events/${eventId}/history`);
    expect(ok.status).toBe(200);
    expect(ok.body.stepSeconds).toBe(60);
    const old = new Date(Date.now() - HISTORY_KEEP_MS - MINUTE_MS).toISOString();
    const refused = await organizer<{ code: string; detail: string }>('GET', `/events/${eventId}/history?from=${old}`);
    expect([refused.status, refused.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(refused.body.detail).toContain('30 days');
    // Bounded and zoned like every client-sent time: far future, no zone, a date alone.
    for (const query of ['from=yesterday', 'to=9999-01-01T00:00:00Z', 'from=2026-12-01T10:00:00', 'from=2026-12-01']) {
      const bad = await organizer<{ code: string; detail: string }>('GET', `/events/${eventId}/history?${query}`);
      expect([bad.status, bad.body.code], query).toEqual([400, 'INVALID_REQUEST']);
      expect(bad.body.detail, query).toMatch(/^(from|to): /);
    }
    expect((await organizer('GET', `/events/${freshEventId('none')}/history`)).status).toBe(404);
  });
});
