// What a waiting visitor is told about the stock against the line: the places left, and whether the
// people ahead are likely to buy them all first. Pure: the edge computes it from the cursor.
import type { CursorStock } from './cursor';

/** Confirmed orders needed before the seats per buyer count as measured (else each buyer counts as one seat: a lower bound). */
const MIN_ORDERS_MEASURED = 5;

/** The stock part of a status answer. */
export interface StockView {
  /** Places on sale now (0 once sold out). */
  left: number;
  /** Places held by buyers right now: they come back if a hold ends unpaid. */
  held: number;
  /** Seats per confirmed order, to one decimal; null until MIN_ORDERS_MEASURED orders. */
  seatsPerBuyer: number | null;
  /**
   * True when the people ahead, buying `seatsPerBuyer` each (or one each before it is measured),
   * would take every place left and held before the visitor's turn; always true once sold out.
   */
  sellOutLikely: boolean;
}

/**
 * The stock view for a visitor with `ahead` people in front (the upper bound when the place is a
 * range; null when unknown: then only a sell-out says "likely").
 * @returns null when the cursor carries no stock (display off, unknown, sections)
 */
export function stockView(stock: CursorStock | null | undefined, ahead: number | null, soldOut: boolean): StockView | null {
  if (!stock) return null;
  const perBuyer = stock.orders >= MIN_ORDERS_MEASURED ? Math.round((10 * stock.sold) / stock.orders) / 10 : null;
  const left = soldOut ? 0 : stock.left;
  const demand = ahead === null ? 0 : ahead * (perBuyer ?? 1);
  return {
    left,
    held: soldOut ? 0 : stock.held,
    seatsPerBuyer: perBuyer,
    sellOutLikely: soldOut || (ahead !== null && ahead > 0 && demand >= left + stock.held),
  };
}
