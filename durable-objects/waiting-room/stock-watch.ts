// The stock the WaitingRoom publishes in its cursor: read from the event's Inventory once per tick,
// so a waiting visitor's poll still costs no object call (DESIGN.md section 7).
import type { CursorStock } from '../../contracts/queue/cursor';
import { logDecision } from '../../contracts/log';
import type { Room } from './room-reads';

/** The last stock read, kept in memory: a restarted room publishes none until its next tick. */
export class StockWatch {
  private last: CursorStock | null = null;

  /**
   * Reads the event's stock (`Inventory.stock`) unless the organizer turned the display off. A
   * failed read keeps the last figures (their `readAtMs` says how old they are) and is logged.
   */
  async refresh(env: Pick<Env, 'INVENTORY'>, room: Room, nowMs: number): Promise<void> {
    if (room.config.page.showStock === false) {
      this.last = null;
      return;
    }
    try {
      const stock = await env.INVENTORY.getByName(room.config.eventId).stock();
      this.last = stock ? { ...stock, readAtMs: nowMs } : null;
    } catch (err) {
      logDecision('fault', {
        eventId: room.config.eventId,
        call: 'inventory.stock',
        error: err instanceof Error ? err.message : 'unknown',
      });
    }
  }

  /** The stock to publish for `room`: none while the display is off. */
  published(room: Room): CursorStock | null {
    return room.config.page.showStock === false ? null : this.last;
  }
}
