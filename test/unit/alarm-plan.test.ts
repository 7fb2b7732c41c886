// The WaitingRoom's alarm rule: it ticks only while releases can happen, sleeps until
// the sale start, a slot freeing or the next event otherwise, and only ever moves an alarm earlier
// outside a tick.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alarmChange, planAlarm, STOCK_REFRESH_MS, type AlarmFacts, type AlarmPlan } from '../../durable-objects/waiting-room/alarm-plan';

const T0 = 1_800_000_000_000;
const TICK = 1_000;

function facts(overrides: Partial<AlarmFacts> = {}): AlarmFacts {
  return {
    nowMs: T0,
    tickMs: TICK,
    cause: 'tick',
    mode: 'open',
    soldOut: false,
    saleStartsAtMs: 0,
    drawPending: false,
    waiting: 5,
    freeSlots: 3,
    nextSlotFreesAtMs: null,
    ...overrides,
  };
}

describe('planAlarm', () => {
  it.each<{ name: string; f: Partial<AlarmFacts>; want: AlarmPlan }>([
    { name: 'ticks while visitors wait and slots are free', f: {}, want: { kind: 'tick', atMs: T0 + TICK, reason: 'releasing' } },
    {
      name: 'an event earns one tick, even when paused',
      f: { cause: 'event', mode: 'paused', waiting: 0 },
      want: { kind: 'tick', atMs: T0 + TICK, reason: 'event' },
    },
    {
      name: 'sleeps until the sale start',
      f: { saleStartsAtMs: T0 + 3_600_000 },
      want: { kind: 'sleep', atMs: T0 + 3_600_000, reason: 'sale_start' },
    },
    {
      name: 'sleeps until the sale start when paused before it',
      f: { saleStartsAtMs: T0 + 5, mode: 'paused' },
      want: { kind: 'sleep', atMs: T0 + 5, reason: 'sale_start' },
    },
    {
      name: 'ticks for a lottery draw due',
      f: { drawPending: true, mode: 'paused' },
      want: { kind: 'tick', atMs: T0 + TICK, reason: 'draw' },
    },
    { name: 'sleeps while paused', f: { mode: 'paused' }, want: { kind: 'sleep', atMs: null, reason: 'paused' } },
    { name: 'sleeps while closed', f: { mode: 'closed' }, want: { kind: 'sleep', atMs: null, reason: 'closed' } },
    { name: 'sleeps while sold out', f: { soldOut: true }, want: { kind: 'sleep', atMs: null, reason: 'sold_out' } },
    {
      name: 'sleeps with nobody in line, however many are active',
      f: { waiting: 0, freeSlots: -4 },
      want: { kind: 'sleep', atMs: null, reason: 'nobody_waiting' },
    },
    {
      name: 'sleeps until the next slot frees when all are taken',
      f: { freeSlots: 0, nextSlotFreesAtMs: T0 + 45_000 },
      want: { kind: 'sleep', atMs: T0 + 45_000, reason: 'slots_full' },
    },
    {
      name: 'a slot deadline already passed is due at once, never in the past',
      f: { freeSlots: 0, nextSlotFreesAtMs: T0 - 5 },
      want: { kind: 'sleep', atMs: T0 + 1, reason: 'slots_full' },
    },
    {
      name: 'with every slot taken and nothing ending, waits for an event',
      f: { freeSlots: -1 },
      want: { kind: 'sleep', atMs: null, reason: 'slots_full' },
    },
    {
      name: 'with every slot taken and the stock shown, wakes within the stock refresh to read it',
      f: { freeSlots: 0, nextSlotFreesAtMs: T0 + 45_000, stockShown: true },
      want: { kind: 'sleep', atMs: T0 + STOCK_REFRESH_MS, reason: 'slots_full' },
    },
    {
      name: 'with every slot taken, nothing ending and the stock shown, still wakes to read it',
      f: { freeSlots: -1, stockShown: true },
      want: { kind: 'sleep', atMs: T0 + STOCK_REFRESH_MS, reason: 'slots_full' },
    },
    {
      name: 'with the stock shown, a slot that frees sooner than the refresh still comes first',
      f: { freeSlots: 0, nextSlotFreesAtMs: T0 + 3_000, stockShown: true },
      want: { kind: 'sleep', atMs: T0 + 3_000, reason: 'slots_full' },
    },
    {
      name: 'a capacity change ticks when slots held releases back',
      f: { cause: 'capacity', freeSlots: 0 },
      want: { kind: 'tick', atMs: T0 + TICK, reason: 'capacity' },
    },
    {
      name: 'a capacity change wakes no paused room',
      f: { cause: 'capacity', mode: 'paused' },
      want: { kind: 'sleep', atMs: null, reason: 'paused' },
    },
    {
      name: 'a capacity change wakes no room before its sale',
      f: { cause: 'capacity', saleStartsAtMs: T0 + 9 },
      want: { kind: 'sleep', atMs: T0 + 9, reason: 'sale_start' },
    },
    {
      name: 'a capacity change with nobody waiting wakes nobody',
      f: { cause: 'capacity', waiting: 0 },
      want: { kind: 'sleep', atMs: null, reason: 'nobody_waiting' },
    },
  ])('$name', ({ f, want }) => expect(planAlarm(facts(f))).toEqual(want));

  it('after a tick, plans a one-tick alarm only for an open room on sale with someone waiting and a free slot (or a draw due)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('open', 'paused', 'closed'),
        fc.boolean(),
        fc.integer({ min: -5_000, max: 5_000 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: -3, max: 3 }),
        fc.option(fc.integer({ min: -5_000, max: 90_000 }), { nil: null }),
        (mode, soldOut, saleOffset, drawPending, waiting, free, slotOffset) => {
          const f = facts({
            mode,
            soldOut,
            saleStartsAtMs: T0 + saleOffset,
            drawPending,
            waiting,
            freeSlots: free,
            nextSlotFreesAtMs: slotOffset === null ? null : T0 + slotOffset,
          });
          const plan = planAlarm(f);
          const onSale = saleOffset <= 0;
          const releasing = onSale && mode === 'open' && !soldOut && waiting > 0 && free > 0;
          expect(plan.kind === 'tick').toBe(releasing || (onSale && drawPending));
          // No alarm in the past (no loop at the same instant).
          if (plan.atMs !== null) expect(plan.atMs).toBeGreaterThan(T0);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('alarmChange', () => {
  const tick: AlarmPlan = { kind: 'tick', atMs: T0 + TICK, reason: 'releasing' };
  const sleep: AlarmPlan = { kind: 'sleep', atMs: null, reason: 'paused' };
  it.each([
    { name: 'in a tick, sets the next time', plan: tick, inAlarm: true, armed: T0 + 99_999, want: { kind: 'set', atMs: T0 + TICK } },
    {
      name: 'in a tick, deletes an alarm a sleeping room no longer needs',
      plan: sleep,
      inAlarm: true,
      armed: T0 + 5,
      want: { kind: 'delete' },
    },
    { name: 'in a tick, keeps nothing when nothing is armed', plan: sleep, inAlarm: true, armed: null, want: { kind: 'keep' } },
    { name: 'outside a tick, never deletes', plan: sleep, inAlarm: false, armed: T0 + 5, want: { kind: 'keep' } },
    {
      name: 'outside a tick, moves an alarm earlier',
      plan: tick,
      inAlarm: false,
      armed: T0 + 60_000,
      want: { kind: 'set', atMs: T0 + TICK },
    },
    { name: 'outside a tick, never delays one', plan: tick, inAlarm: false, armed: T0 + 10, want: { kind: 'keep' } },
    { name: 'outside a tick, arms a room with none', plan: tick, inAlarm: false, armed: null, want: { kind: 'set', atMs: T0 + TICK } },
  ] as const)('$name', ({ plan, inAlarm, armed, want }) => expect(alarmChange(plan, { inAlarm }, armed)).toEqual(want));
});
