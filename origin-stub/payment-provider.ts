// A fake payment provider: authorize, capture and void, idempotent by operation id.

/** A test card number that the fake provider always declines. */
export const DECLINED_CARD = '4000000000000002';

/** States of a fake payment. */
export type PaymentStatus = 'AUTHORIZED' | 'DECLINED' | 'CAPTURED' | 'VOIDED';

/** One payment as the provider keeps it; amounts are integers in minor units. */
export interface Payment {
  operationId: string;
  amountMinor: number;
  currency: string;
  status: PaymentStatus;
}

/**
 * In-storage fake of a card provider. Every call takes the caller's operation id as its
 * idempotency key: repeating a call returns the stored payment and never charges twice.
 */
export class FakePaymentProvider {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS pay_payments (
      operation_id TEXT PRIMARY KEY, amount_minor INTEGER NOT NULL, currency TEXT NOT NULL, status TEXT NOT NULL)`);
  }

  /** Authorizes `amountMinor`; the DECLINED_CARD is declined, any other card approved. */
  authorize(operationId: string, amountMinor: number, currency: string, card: string): Payment {
    const existing = this.get(operationId);
    if (existing) return existing;
    const status: PaymentStatus = card.replace(/\s/g, '') === DECLINED_CARD ? 'DECLINED' : 'AUTHORIZED';
    this.sql.exec('INSERT INTO pay_payments VALUES (?, ?, ?, ?)', operationId, amountMinor, currency, status);
    return { operationId, amountMinor, currency, status };
  }

  /** Captures an authorized payment; capturing again is a no-op. */
  capture(operationId: string): Payment | null {
    this.sql.exec(`UPDATE pay_payments SET status = 'CAPTURED' WHERE operation_id = ? AND status = 'AUTHORIZED'`, operationId);
    return this.get(operationId);
  }

  /** Voids an authorization that will not be captured (no money moves). */
  void(operationId: string): Payment | null {
    this.sql.exec(`UPDATE pay_payments SET status = 'VOIDED' WHERE operation_id = ? AND status = 'AUTHORIZED'`, operationId);
    return this.get(operationId);
  }

  /** The payment for an operation id, or null. */
  get(operationId: string): Payment | null {
    const row = this.sql
      .exec<{ operation_id: string; amount_minor: number; currency: string; status: PaymentStatus }>(
        'SELECT * FROM pay_payments WHERE operation_id = ?',
        operationId,
      )
      .toArray()[0];
    return row ? { operationId: row.operation_id, amountMinor: row.amount_minor, currency: row.currency, status: row.status } : null;
  }
}
