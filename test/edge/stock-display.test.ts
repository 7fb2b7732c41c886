// Stock against the line, over the app: the waiting page and JSON show the places still for sale
// beside the people ahead, say when the people ahead are likely to buy them all first (seats per
// buyer measured from confirmed orders), reach every waiting visitor as sold out once the last
// seat goes (polls read the cursor, which carries the stock), and disappear when the organizer turns
// the display off.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { HoldAnswer } from '../../contracts/inventory-answers';
import type { StockView } from '../../contracts/queue/stock-view';
import { forgetCursor } from '../../src/lib/cursor-cache';
import { MESSAGES } from '../../src/pages/waiting-messages';
import { Visitor, countArrivals, createEvent, freshEventId, tick } from '../helpers/client';

interface Status {
  state: string;
  ahead: number | null;
  stock: StockView | null;
}

/** Sells `seats` to `account` straight at the Inventory: hold, payment, confirm. */
async function sell(eventId: string, account: string, seats: string[]): Promise<void> {
  const inv = env.INVENTORY.getByName(eventId);
  const held = (await inv.hold(account, { seatIds: seats }, `k-${account}`)) as HoldAnswer;
  if (held.kind !== 'held') throw new Error(`hold: ${JSON.stringify(held)}`);
  await inv.startPayment(held.hold.holdId, account);
  await inv.confirm(held.hold.holdId, `o-${account}`, held.hold.priceMinor, account);
}

async function lineUp(eventId: string, n: number): Promise<Visitor[]> {
  const line: Visitor[] = [];
  for (let i = 0; i < n; i++) {
    const v = new Visitor();
    expect((await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
    line.push(v);
  }
  await countArrivals(eventId);
  return line;
}

describe('stock against the line', () => {
  it('shows what is left beside the people ahead, warns when it will likely sell out first, and tells everyone once it has', async () => {
    const eventId = freshEventId('stock');
    // 12 seats, nobody released (the rate's minimum is 0 and a pause holds the line).
    expect((await createEvent(eventId, { seats: 12, seatsPerRow: 12, releaseRatePerMinute: 1, minReleaseRatePerMinute: 1 })).status).toBe(
      201,
    );
    const line = await lineUp(eventId, 20);
    // Five orders of two seats each: 2 seats per buyer, 2 seats left.
    for (let i = 0; i < 5; i++) await sell(eventId, `buyer-${i}`, [`A${2 * i + 1}`, `A${2 * i + 2}`]);
    await tick(eventId);
    const polls = await Promise.all(line.map(async (v) => (await v.json<Status>(`/_wr/events/${eventId}/status`)).body));
    const waiting = polls.filter((s) => s.state === 'waiting');
    expect(waiting.length).toBeGreaterThan(10);
    for (const s of waiting) {
      expect(s.stock).toMatchObject({ left: 2, held: 0, seatsPerBuyer: 2 });
      // Two seats at two a buyer: anyone with a buyer ahead is likely too late.
      expect(s.stock!.sellOutLikely).toBe(s.ahead! >= 1);
    }
    const page = await (await line.at(-1)!.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain(MESSAGES.en.stockLeft.replace('{left}', '2').replace('{held}', '0'));
    expect(page).toContain(MESSAGES.en.stockWarn.replace('{per}', '2'));

    // The last two seats go: every waiting visitor's next poll says sold out (the edge's cursor
    // cache lasts at most CURSOR_MAX_STALE_MS; dropped here instead of waiting for it).
    await sell(eventId, 'buyer-last', ['A11', 'A12']);
    await forgetCursor(eventId);
    for (const v of line) {
      const s = (await v.json<Status>(`/_wr/events/${eventId}/status`)).body;
      if (s.state === 'admitted') continue;
      expect(s.state).toBe('sold_out');
      expect(s.stock).toMatchObject({ left: 0, sellOutLikely: true });
    }
  });

  it('warns at one seat a buyer before any order is measured, and shows nothing when the organizer turns it off', async () => {
    const eventId = freshEventId('stock');
    expect((await createEvent(eventId, { seats: 3, seatsPerRow: 3, releaseRatePerMinute: 1, minReleaseRatePerMinute: 1 })).status).toBe(
      201,
    );
    const line = await lineUp(eventId, 6);
    await tick(eventId);
    const last = (await line.at(-1)!.json<Status>(`/_wr/events/${eventId}/status`)).body;
    expect(last.stock).toEqual({ left: 3, held: 0, seatsPerBuyer: null, sellOutLikely: true });

    expect(
      (
        await createEvent(eventId, {
          seats: 3,
          seatsPerRow: 3,
          releaseRatePerMinute: 1,
          minReleaseRatePerMinute: 1,
          page: { showStock: false },
        })
      ).status,
    ).toBe(200);
    await tick(eventId);
    expect((await line.at(-1)!.json<Status>(`/_wr/events/${eventId}/status`)).body.stock).toBeNull();
    const page = await (await line.at(-1)!.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } })).text();
    expect(page).toMatch(/<p id="stock" data-testid="stock"\s*hidden><\/p>/);
  });
});
