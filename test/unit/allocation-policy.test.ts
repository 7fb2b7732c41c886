// The pure allocation rules under random facts: who may hold an allocated seat or tier
// place at a given instant, and which allocation changes may be written.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocationLive,
  decideAllocation,
  gateHold,
  reservedPlaces,
  type AllocationFacts,
  type AllocationSeatFacts,
} from '../../durable-objects/inventory/allocation-policy';
import { MAX_INSTANT_AHEAD_MS } from '../../contracts/zod';

const SEATS = ['A1', 'A2', 'A3', 'A4', 'A5'];
const NOW = 1_000_000;
const arbAllocation = (i: number) =>
  fc.record({
    allocationId: fc.constant(`al${i}`),
    channelId: fc.constantFrom('box', 'partner'),
    kind: fc.constant('tier' as const),
    tier: fc.constant('floor'),
    quantity: fc.integer({ min: 0, max: 6 }),
    used: fc.integer({ min: 0, max: 6 }),
    // Around NOW, the release instant itself included.
    releaseAtMs: fc.integer({ min: NOW - 2, max: NOW + 2 }),
  });
const arbSeatAllocations = fc
  .array(fc.tuple(fc.constantFrom(...SEATS), arbAllocation(0)), { maxLength: 5 })
  .map((pairs) => new Map<string, AllocationFacts>(pairs.map(([seat, a]) => [seat, { ...a, kind: 'seats', tier: null }])));
const arbHolder = fc.oneof(
  fc.constant({ kind: 'public' as const }),
  fc.constantFrom('box', 'partner').map((channelId) => ({ kind: 'channel' as const, channelId })),
);

describe('gateHold', () => {
  it('an allocation is live strictly before its release time: the release instant is general sale', () => {
    expect(allocationLive({ releaseAtMs: NOW }, NOW)).toBe(false);
    expect(allocationLive({ releaseAtMs: NOW + 1 }, NOW)).toBe(true);
  });

  it('lets the public hold only seats outside live allocations, and a channel only seats of its own live allocations', () => {
    fc.assert(
      fc.property(
        arbHolder,
        arbSeatAllocations,
        fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 3 }),
        (holder, map, seatIds) => {
          const gate = gateHold({
            holder,
            target: { kind: 'seats', seatIds },
            seatAllocations: map,
            tierAllocations: [],
            tier: null,
            nowMs: NOW,
          });
          const owner = (id: string) => {
            const a = map.get(id);
            return a && a.releaseAtMs > NOW ? a.channelId : null;
          };
          const allowed = seatIds.every((id) => owner(id) === (holder.kind === 'public' ? null : holder.channelId));
          expect(gate.ok).toBe(allowed);
          if (!gate.ok) expect(gate.refusal.kind).toBe(holder.kind === 'public' ? 'unavailable' : 'not_allocated');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves the public the places no live allocation reserves; a channel draws on one of its live allocations with room', () => {
    fc.assert(
      fc.property(
        arbHolder,
        fc.tuple(arbAllocation(0), arbAllocation(1), arbAllocation(2)),
        fc.record({ held: fc.nat(4), sold: fc.nat(4) }),
        fc.integer({ min: 1, max: 6 }),
        (holder, allocations, counts, quantity) => {
          const tier = { capacity: 12, ...counts };
          const gate = gateHold({
            holder,
            target: { kind: 'tier', tier: 'floor', quantity },
            seatAllocations: new Map(),
            tierAllocations: allocations,
            tier,
            nowMs: NOW,
          });
          const live = allocations.filter((a) => a.releaseAtMs > NOW);
          if (holder.kind === 'public') {
            expect(gate.ok).toBe(tier.capacity - tier.held - tier.sold - reservedPlaces(allocations, NOW) >= quantity);
          } else {
            const mine = live.filter((a) => a.channelId === holder.channelId);
            expect(gate.ok).toBe(mine.some((a) => a.quantity - a.used >= quantity));
            if (gate.ok) expect(mine.map((a) => a.allocationId)).toContain(gate.allocationId);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('decideAllocation', () => {
  const arbSeatFacts = fc.tuple(
    ...SEATS.map(() => fc.record({ status: fc.constantFrom('AVAILABLE', 'AVAILABLE', 'HELD', 'SOLD' as const), other: fc.boolean() })),
  );

  it('never adds a seat that is held, sold or allocated elsewhere, and never takes out one that is held or sold', () => {
    fc.assert(
      fc.property(
        arbSeatFacts,
        fc.uniqueArray(fc.constantFrom(...SEATS), { maxLength: 4 }),
        fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: -2, max: 2 }),
        (facts, current, wanted, releaseIn) => {
          const seats: AllocationSeatFacts[] = SEATS.map((seatId, i) => ({
            seatId,
            status: facts[i]!.status as AllocationSeatFacts['status'],
            allocationId: current.includes(seatId) ? 'al0' : facts[i]!.other ? 'al9' : null,
          }));
          const existing = current.length
            ? {
                allocationId: 'al0',
                channelId: 'box',
                kind: 'seats' as const,
                tier: null,
                quantity: current.length,
                used: 0,
                releaseAtMs: NOW + 5,
                seatIds: current,
              }
            : null;
          const d = decideAllocation({
            request: { allocationId: 'al0', channelId: 'box', target: { seatIds: wanted }, releaseAtMs: NOW + releaseIn },
            existing,
            channel: { revoked: false },
            seats,
            tier: null,
            nowMs: NOW,
          });
          if (releaseIn <= 0) {
            expect(d.kind).toBe('invalid');
            return;
          }
          const byId = new Map(seats.map((s) => [s.seatId, s]));
          if (d.kind === 'apply') {
            for (const id of d.addSeats) expect(byId.get(id)).toMatchObject({ status: 'AVAILABLE', allocationId: null });
            for (const id of d.removeSeats) expect(byId.get(id)!.status).toBe('AVAILABLE');
            expect(new Set([...current.filter((id) => !d.removeSeats.includes(id)), ...d.addSeats])).toEqual(new Set(wanted));
          } else {
            expect(['allocation_conflict', 'allocation_in_use']).toContain(d.kind);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps a tier quota at or above what the channel holds and sold, and within the free places', () => {
    fc.assert(
      fc.property(fc.nat(10), fc.nat(10), fc.nat(6), fc.nat(6), fc.nat(12), (quantity, used, held, sold, reservedByOthers) => {
        const tier = { capacity: 20, held: held + used, sold, reservedByOthers };
        const existing = {
          allocationId: 'al0',
          channelId: 'box',
          kind: 'tier' as const,
          tier: 'floor',
          quantity: used,
          used,
          releaseAtMs: NOW + 5,
          seatIds: [],
        };
        const d = decideAllocation({
          request: { allocationId: 'al0', channelId: 'box', target: { tier: 'floor', quantity }, releaseAtMs: NOW + 1 },
          existing,
          channel: { revoked: false },
          seats: [],
          tier,
          nowMs: NOW,
        });
        const fits = quantity >= used && quantity - used <= tier.capacity - tier.held - tier.sold - reservedByOthers;
        expect(d.kind).toBe(fits ? 'apply' : quantity < used ? 'allocation_in_use' : 'allocation_conflict');
      }),
      { numRuns: 500 },
    );
  });

  it('refuses an unknown or revoked channel, an ended allocation, another channel or kind, and a release time out of range', () => {
    const base = {
      request: { allocationId: 'al0', channelId: 'box', target: { seatIds: ['A1'] }, releaseAtMs: NOW + 1 },
      seats: [],
      tier: null,
      nowMs: NOW,
    };
    const existing = {
      allocationId: 'al0',
      channelId: 'box',
      kind: 'seats' as const,
      tier: null,
      quantity: 1,
      used: 0,
      releaseAtMs: NOW,
      seatIds: ['A1'],
    };
    const cases: [Parameters<typeof decideAllocation>[0], string][] = [
      [{ ...base, existing: null, channel: null }, 'channel_unknown'],
      [{ ...base, existing: null, channel: { revoked: true } }, 'channel_revoked'],
      [{ ...base, existing, channel: { revoked: false } }, 'allocation_ended'],
      [{ ...base, existing: { ...existing, releaseAtMs: NOW + 9, channelId: 'partner' }, channel: { revoked: false } }, 'invalid'],
      [{ ...base, existing: { ...existing, releaseAtMs: NOW + 9, kind: 'tier' }, channel: { revoked: false } }, 'invalid'],
      [{ ...base, existing: null, channel: { revoked: false } }, 'unknown_seats'],
      // A release time past the alarm range would break the object's alarm.
      [
        { ...base, request: { ...base.request, releaseAtMs: NOW + MAX_INSTANT_AHEAD_MS + 1 }, existing: null, channel: { revoked: false } },
        'invalid',
      ],
      [
        { ...base, request: { ...base.request, releaseAtMs: Date.UTC(2300, 0, 1) }, existing: null, channel: { revoked: false } },
        'invalid',
      ],
      [{ ...base, request: { ...base.request, releaseAtMs: Number.NaN }, existing: null, channel: { revoked: false } }, 'invalid'],
    ];
    for (const [facts, kind] of cases) expect(decideAllocation(facts).kind).toBe(kind);
  });
});
