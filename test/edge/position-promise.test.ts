// Positions over real HTTP (the app's fetch, real objects, the edge's cursor cache): visitors join
// about ten a second while the room ticks and the edge refreshes its cached cursor every other
// second, and all of them poll. No visitor's shown position ever rises, two exact positions are
// never the same in one round, and positions known only within a range say so. Prints the largest
// rise and the equal positions seen.
import { describe, expect, it } from 'vitest';
import { BUCKET_MS } from '../../contracts/queue/cursor';
import { forgetCursor } from '../../src/lib/cursor-cache';
import { Visitor, createEvent, freshEventId } from '../helpers/client';
import { QueueHarness } from '../helpers/queue';

interface Status {
  state: string;
  position: number | null;
  positionRange?: { min: number; max: number | null } | null;
  counting?: boolean;
  asOf?: string;
}

/**
 * What the visitors were shown: per visitor the positions in order, per round the exact positions
 * with the cursor each was read from (a round can straddle a refresh of the edge's cached cursor).
 */
class Seen {
  readonly shown = new Map<Visitor, number[]>();
  readonly rounds: string[][] = [];
  readonly admitted = new Set<Visitor>();
  ranges = 0;
  counting = 0;

  async poll(eventId: string, visitors: readonly Visitor[]): Promise<void> {
    const exact: string[] = [];
    for (const v of visitors) {
      const { body } = await v.json<Status>(`/_wr/events/${eventId}/status`);
      this.note(v, body, exact);
    }
    this.rounds.push(exact);
  }

  note(v: Visitor, body: Status, exact: string[] | null): void {
    if (body.counting) this.counting++;
    if (body.state === 'admitted') this.admitted.add(v);
    if (body.position === null || body.state === 'admitted') return;
    if (body.positionRange) this.ranges++;
    else exact?.push(`${body.asOf ?? ''} #${body.position}`);
    const list = this.shown.get(v) ?? [];
    list.push(body.position);
    this.shown.set(v, list);
  }

  /** Visitors who were shown a place or admitted. */
  placed(): number {
    return new Set([...this.shown.keys(), ...this.admitted]).size;
  }

  /** The most any visitor's shown position rose above the lowest one they had been shown before. */
  largestRise(): number {
    let rise = 0;
    for (const list of this.shown.values()) {
      let low = Infinity;
      for (const p of list) {
        rise = Math.max(rise, p - low);
        low = Math.min(low, p);
      }
    }
    return rise;
  }

  /** Answers in a poll round whose exact position another visitor was also shown from the same cursor. */
  equalPositions(): number {
    let equal = 0;
    for (const round of this.rounds) {
      const n = new Map<string, number>();
      for (const p of round) n.set(p, (n.get(p) ?? 0) + 1);
      for (const c of n.values()) if (c > 1) equal += c;
    }
    return equal;
  }
}

/**
 * `waves` seconds of `perSecond` joins each at the room's clock, the room ticking every second
 * and the edge refreshing its cached cursor every other second (as a busy isolate does), every
 * visitor polling after each join and each tick; then `after` more ticked and polled seconds.
 */
async function surge(eventId: string, opts: { t0: number; waves: number; perSecond: number; after: number }): Promise<Seen> {
  const room = new QueueHarness(eventId);
  const seen = new Seen();
  const visitors: Visitor[] = [];
  const { t0 } = opts;
  for (let s = 0; s < opts.waves; s++) {
    for (let i = 0; i < opts.perSecond; i++) {
      await room.at(t0 + s * BUCKET_MS + (i * BUCKET_MS) / opts.perSecond);
      if (i === opts.perSecond / 2) {
        await room.tick(room.nowMs);
        if (s % 2 === 0) await forgetCursor(eventId);
      }
      const v = new Visitor();
      const joined = await v.json<Status>(`/_wr/events/${eventId}/join`, { method: 'POST' });
      expect(joined.status).toBe(200);
      visitors.push(v);
      seen.note(v, joined.body, null);
      await seen.poll(eventId, visitors);
    }
  }
  for (let s = opts.waves; s < opts.waves + opts.after; s++) {
    await room.tick(t0 + s * BUCKET_MS);
    await forgetCursor(eventId);
    await seen.poll(eventId, visitors);
  }
  return seen;
}

function report(name: string, seen: Seen): void {
  console.log(
    `positions ${name}: largest rise ${seen.largestRise()}, equal positions ${seen.equalPositions()}` +
      ` (visitors ${seen.shown.size}, answers with a range ${seen.ranges}, still counting ${seen.counting})`,
  );
}

describe('positions shown to visitors joining within one second', () => {
  it('never rise and are never shared on a FIFO event with one queue shard, and are all exact', async () => {
    const eventId = freshEventId('pos1');
    expect((await createEvent(eventId, { releaseRatePerMinute: 30, minReleaseRatePerMinute: 30 })).status).toBe(201);
    const seen = await surge(eventId, { t0: Math.ceil(Date.now() / BUCKET_MS) * BUCKET_MS, waves: 4, perSecond: 10, after: 6 });
    report('FIFO, 1 shard, 40 visitors', seen);
    expect(seen.largestRise()).toBe(0);
    expect(seen.equalPositions()).toBe(0);
    expect(seen.ranges).toBe(0);
    // Everyone was shown a place once their second was counted (or admitted first).
    expect(seen.placed()).toBe(40);
  });

  it('never rise and are never shared on a FIFO event with four queue shards, ranges where the order within a second is open', async () => {
    const eventId = freshEventId('pos4');
    expect((await createEvent(eventId, { releaseRatePerMinute: 30, minReleaseRatePerMinute: 30, queueShards: 4 })).status).toBe(201);
    const seen = await surge(eventId, { t0: Math.ceil(Date.now() / BUCKET_MS) * BUCKET_MS, waves: 4, perSecond: 10, after: 6 });
    report('FIFO, 4 shards, 40 visitors', seen);
    expect(seen.largestRise()).toBe(0);
    expect(seen.equalPositions()).toBe(0);
    expect(seen.placed()).toBe(40);
  });

  it('never rise and are never shared after a lottery draw, for entrants and for later arrivals', async () => {
    const eventId = freshEventId('poslot');
    const start = Math.ceil((Date.now() + 3_600_000) / BUCKET_MS) * BUCKET_MS;
    expect(
      (
        await createEvent(eventId, {
          policy: 'random',
          saleStartsAt: new Date(start).toISOString(),
          releaseRatePerMinute: 30,
          minReleaseRatePerMinute: 30,
        })
      ).status,
    ).toBe(201);
    const room = new QueueHarness(eventId);
    const entrants: Visitor[] = [];
    for (let i = 0; i < 30; i++) {
      await room.at(start - 60_000 + i * 100);
      const v = new Visitor();
      expect((await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
      entrants.push(v);
    }
    await room.tick(start + 1);
    await forgetCursor(eventId);
    const seen = new Seen();
    await seen.poll(eventId, entrants);
    const late = await surge(eventId, { t0: start + BUCKET_MS, waves: 2, perSecond: 10, after: 4 });
    await seen.poll(eventId, entrants);
    report('lottery, 30 entrants', seen);
    report('lottery, 20 later arrivals', late);
    for (const s of [seen, late]) {
      expect(s.largestRise()).toBe(0);
      expect(s.equalPositions()).toBe(0);
    }
    expect(seen.placed()).toBe(30);
  });
});
