// The waitlist board an edge isolate keeps: a waiting visitor's place from the first waiting
// entry id alone (offers go in entry order), and the cases that must ask the Inventory instead.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeOnBoard, waitlistEntryOf } from '../../src/lib/waitlist-status';

describe('the waitlist board', () => {
  it('gives every waiting entry its place among those waiting, and no place to one offered, ended or newer than the board', () => {
    // A waitlist run as the Inventory runs it: joins at the back, offers to the first waiting
    // entries in order, lapsed accounts joining again at the back (a new entry id).
    const step = fc.oneof(
      fc.constant({ kind: 'join' as const }),
      fc.record({ kind: fc.constant('offer' as const), n: fc.integer({ min: 1, max: 4 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.nat(5), (steps, lateJoins) => {
        const waiting: number[] = [];
        const ended: number[] = [];
        let next = 1;
        for (const s of steps) {
          if (s.kind === 'join') waiting.push(next++);
          else for (const id of waiting.splice(0, s.n)) ended.push(id);
        }
        const board = { waitingFrom: waiting[0] ?? next, nextEntryId: next };
        waiting.forEach((entryId, i) => expect(placeOnBoard(board, { entryId, quantity: 2 })).toEqual({ place: i + 1 }));
        for (const entryId of ended) expect(placeOnBoard(board, { entryId, quantity: 2 })).toBeNull();
        // Entries that joined after the board was read are asked for.
        for (let k = 0; k < lateJoins; k++) expect(placeOnBoard(board, { entryId: next + k, quantity: 1 })).toBeNull();
      }),
    );
  });

  it('asks the Inventory for a cookie without the quantity', () => {
    expect(placeOnBoard({ waitingFrom: 1, nextEntryId: 9 }, { entryId: 3, quantity: null })).toBeNull();
  });

  it('reads the waitlist cookie: `<entryId>.<quantity>`, or the entry id alone; anything else is no entry', () => {
    expect(waitlistEntryOf('12.3')).toEqual({ entryId: 12, quantity: 3 });
    expect(waitlistEntryOf('12')).toEqual({ entryId: 12, quantity: null });
    for (const bad of [undefined, '', '0', '0.1', '12.0', '12.7', '12.3.4', '-1', '1e3', ' 12', '12.', '9'.repeat(17)])
      expect(waitlistEntryOf(bad), String(bad)).toBeNull();
  });
});
