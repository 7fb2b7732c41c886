// The router's naming rules: a hold, its seats and its hold id always reach the same Inventory
// object; a mix of sections is refused; events without sections keep the object named after them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  holdIdFor,
  inventoryObjectName,
  parseInventoryName,
  sectionObjectName,
  sectionOfHold,
  sectionOfSeat,
} from '../../contracts/inventory-names';
import { SEAT_ID_PATTERN, SECTION_PATTERN } from '../../contracts/names';

const arbSection = fc.stringMatching(/^[A-Z0-9]{1,8}$/);
const arbSeat = fc.stringMatching(/^[A-Z]{1,4}[0-9]{1,4}$/);

describe('inventoryObjectName', () => {
  it('sends seats without a section, tiers and the event to the object named after the event', () => {
    for (const route of [
      { kind: 'seats', seatIds: ['A1', 'B2'] },
      { kind: 'tier', tier: 'floor' },
      { kind: 'hold', holdId: crypto.randomUUID() },
      { kind: 'event' },
    ] as const) {
      expect(inventoryObjectName('ev', route)).toEqual({ ok: true, name: 'ev', section: null });
    }
  });

  it('sends a section seat, the hold it makes and the section itself to one object', () => {
    fc.assert(
      fc.property(arbSection, fc.array(arbSeat, { minLength: 1, maxLength: 6 }), fc.uuid(), (section, seats, uuid) => {
        const seatIds = seats.map((s) => `${section}-${s}`);
        for (const id of seatIds) expect(SEAT_ID_PATTERN.test(id)).toBe(true);
        const bySeats = inventoryObjectName('ev', { kind: 'seats', seatIds });
        const byHold = inventoryObjectName('ev', { kind: 'hold', holdId: holdIdFor(section, uuid) });
        const bySection = inventoryObjectName('ev', { kind: 'section', section });
        expect(bySeats).toEqual({ ok: true, name: sectionObjectName('ev', section), section });
        expect(byHold).toEqual(bySeats);
        expect(bySection).toEqual(bySeats);
        expect(parseInventoryName(sectionObjectName('ev', section))).toEqual({ eventId: 'ev', section });
      }),
    );
  });

  it('refuses seats of two sections, or of a section and none, with SECTION_MIX', () => {
    fc.assert(
      fc.property(arbSection, arbSection, arbSeat, arbSeat, (a, b, s1, s2) => {
        fc.pre(a !== b);
        for (const seatIds of [
          [`${a}-${s1}`, `${b}-${s2}`],
          [`${a}-${s1}`, s2],
        ]) {
          const r = inventoryObjectName('ev', { kind: 'seats', seatIds });
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.code).toBe('SECTION_MIX');
        }
      }),
    );
  });

  it('never names an object after a malformed section prefix (the event object refuses the seat id)', () => {
    for (const seatId of ['../x-A1', 'a-A1', 'TOOLONGSECTION-A1', '-A1']) {
      const r = inventoryObjectName('ev', { kind: 'seats', seatIds: [seatId] });
      expect(r).toEqual({ ok: true, name: 'ev', section: null });
    }
    for (const holdId of ['../x.1', 'lower.abc', '.abc', 'abc']) expect(sectionOfHold(holdId)).toBeNull();
    expect(() => inventoryObjectName('ev', { kind: 'section', section: 'x/y' })).toThrow(/not a section name/);
  });

  it('reads the section back from seat ids and hold ids', () => {
    expect(sectionOfSeat('S2-A14')).toBe('S2');
    expect(sectionOfSeat('A14')).toBeNull();
    expect(sectionOfHold('S2.3f0c')).toBe('S2');
    expect(SECTION_PATTERN.test('S2')).toBe(true);
    expect(parseInventoryName('ev')).toEqual({ eventId: 'ev', section: null });
    expect(parseInventoryName('ev/0')).toBeNull();
  });
});
