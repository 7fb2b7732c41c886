// The stock a waiting visitor is told (contracts/queue/stock-view.ts): seats per buyer once measured,
// one a buyer before, "likely to sell out" exactly when the people ahead would take what is left and held.
import { describe, expect, it } from 'vitest';
import { stockView, type StockView } from '../../contracts/queue/stock-view';

const stock = (o: Partial<{ left: number; held: number; sold: number; orders: number }>) => ({
  left: 10,
  held: 0,
  sold: 0,
  orders: 0,
  readAtMs: 0,
  ...o,
});

describe('stockView', () => {
  const cases: [string, Parameters<typeof stockView>, StockView | null][] = [
    ['none published (display off, unknown, sections)', [null, 5, false], null],
    [
      'not measured yet: one seat a buyer, 9 ahead of 10 left',
      [stock({}), 9, false],
      { left: 10, held: 0, seatsPerBuyer: null, sellOutLikely: false },
    ],
    ['not measured yet: 10 ahead of 10 left', [stock({}), 10, false], { left: 10, held: 0, seatsPerBuyer: null, sellOutLikely: true }],
    [
      'measured 2.5 a buyer: 4 ahead take 10',
      [stock({ sold: 25, orders: 10 }), 4, false],
      { left: 10, held: 0, seatsPerBuyer: 2.5, sellOutLikely: true },
    ],
    [
      'held seats may come back: 4 ahead of 10 left + 2 held',
      [stock({ held: 2, sold: 25, orders: 10 }), 4, false],
      { left: 10, held: 2, seatsPerBuyer: 2.5, sellOutLikely: false },
    ],
    [
      'fewer than 5 orders are not a measure',
      [stock({ sold: 12, orders: 4 }), 4, false],
      { left: 10, held: 0, seatsPerBuyer: null, sellOutLikely: false },
    ],
    [
      'nobody ahead is never too late',
      [stock({ left: 0, held: 3 }), 0, false],
      { left: 0, held: 3, seatsPerBuyer: null, sellOutLikely: false },
    ],
    [
      'position unknown: only a sell-out says likely',
      [stock({ left: 0 }), null, false],
      { left: 0, held: 0, seatsPerBuyer: null, sellOutLikely: false },
    ],
    [
      'sold out: nothing left, likely for everyone',
      [stock({ left: 4, held: 2 }), 0, true],
      { left: 0, held: 0, seatsPerBuyer: null, sellOutLikely: true },
    ],
  ];
  for (const [name, args, want] of cases) it(name, () => expect(stockView(...args)).toEqual(want));
});
