// The AccountLedger's SQL: every read and write of its entries (schema.ts), named by what it means,
// so the object class holds no query and the rules (ledger-policy.ts) hold no storage.
import type { Sql } from '../shared/sql';
import type { LedgerEntry } from './ledger-policy';

/** One row of led_entries. */
interface EntryRow {
  hold_id: string;
  account: string;
  idempotency_key: string;
  request: string;
  quantity: number;
  state: 'reserved' | 'owned';
  reserved_at: number;
  check_at: number;
  object: string;
  claims: number;
}

const toEntry = (r: EntryRow): LedgerEntry => ({
  holdId: r.hold_id,
  account: r.account,
  idempotencyKey: r.idempotency_key,
  request: r.request,
  quantity: r.quantity,
  state: r.state,
  reservedAtMs: r.reserved_at,
  checkAtMs: r.check_at,
  object: r.object,
  claims: r.claims,
});

/** The AccountLedger's queries over the synchronous SQLite API (no await inside any of them). */
export class LedgerStore {
  constructor(private readonly sql: Sql) {}

  /** Every entry of the account, reserved or owned. */
  entriesOf(account: string): LedgerEntry[] {
    return this.sql.all<EntryRow>`SELECT * FROM led_entries WHERE account = ${account}`.map(toEntry);
  }

  /** Stores a new reservation, with its first claim. */
  reserve(e: LedgerEntry): void {
    this.sql
      .run`INSERT INTO led_entries (hold_id, account, idempotency_key, request, quantity, state, reserved_at, check_at, object, claims)
      VALUES (${e.holdId}, ${e.account}, ${e.idempotencyKey}, ${e.request}, ${e.quantity}, 'reserved', ${e.reservedAtMs}, ${e.checkAtMs}, ${e.object}, 1)`;
  }

  /** One more request claims the reservation (a replay while it is still reserved). */
  claimAgain(holdId: string): void {
    this.sql.run`UPDATE led_entries SET claims = claims + 1 WHERE hold_id = ${holdId}`;
  }

  /** The hold was sold: its places count for good. */
  own(holdId: string): void {
    this.sql.run`UPDATE led_entries SET state = 'owned' WHERE hold_id = ${holdId}`;
  }

  /** The hold is gone (released, expired): a reservation's places are freed; an owned entry stays. */
  drop(holdId: string): void {
    this.sql.run`DELETE FROM led_entries WHERE hold_id = ${holdId} AND state = 'reserved'`;
  }

  /** One request gives back its claim of a reservation; the places go with the last claim. */
  unclaim(holdId: string): void {
    this.sql.run`UPDATE led_entries SET claims = claims - 1 WHERE hold_id = ${holdId} AND state = 'reserved'`;
    this.sql.run`DELETE FROM led_entries WHERE hold_id = ${holdId} AND state = 'reserved' AND claims <= 0`;
  }

  /** Asks about a reservation again at `atMs` (epoch ms). */
  checkAgainAt(holdId: string, atMs: number): void {
    this.sql.run`UPDATE led_entries SET check_at = ${atMs} WHERE hold_id = ${holdId} AND state = 'reserved'`;
  }

  /** Reserved entries due for reconciling at `nowMs`, earliest first, at most `limit`. */
  due(nowMs: number, limit: number): LedgerEntry[] {
    return this.sql.all<EntryRow>`SELECT * FROM led_entries WHERE state = 'reserved' AND check_at <= ${nowMs}
      ORDER BY check_at LIMIT ${limit}`.map(toEntry);
  }

  /** The earliest reconcile time of a reserved entry (epoch ms), or null when none is reserved. */
  nextCheck(): number | null {
    return this.sql.one<{ at: number | null }>`SELECT MIN(check_at) AS at FROM led_entries WHERE state = 'reserved'`?.at ?? null;
  }
}
