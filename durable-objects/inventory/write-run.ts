// How the Inventory runs a write: the sweep of passed deadlines, the decision in one synchronous
// transaction (or a batch of them), then the after-write (alarm, sell-out), the answer after the commit.

import type { BatchOutcome } from '../../contracts/batch';

/** What a write run needs of its object. */
export interface WriteRunPorts {
  /** `ctx.storage.transactionSync`: runs `fn` as one transaction (a throw rolls it back). */
  transactionSync: <T>(fn: () => T) => T;
  /** The object's clock, epoch ms. */
  clock: () => number;
  /** Applies every deadline and release time passed at `nowMs` (inside a transaction). */
  sweep: (nowMs: number) => void;
  /** After each decision, in its transaction: what it means for the resale (resale-desk.ts `settle`). */
  settle: (nowMs: number) => void;
  /**
   * After every committed write: the alarm follows the deadlines, a sell-out is announced. A throw
   * is logged, never answered: the write committed (the object re-arms on its next write or start).
   */
  afterWrite: () => Promise<void>;
}

/** Runs the Inventory's writes (see the file comment). */
export class WriteRun {
  constructor(private readonly p: WriteRunPorts) {}

  /** Sweeps, then runs `decide` at the object's clock in the same transaction; the after-write follows. */
  async one<T>(decide: (nowMs: number) => T): Promise<T> {
    const now = this.p.clock();
    const answer = this.p.transactionSync(() => {
      this.p.sweep(now);
      const answer = decide(now);
      this.p.settle(now);
      return answer;
    });
    await this.afterCommit();
    return answer;
  }

  /**
   * `one` for a batch: one sweep, then each `decide` at the same clock in its own transaction, in
   * order (one that throws rolls back only itself and answers `ok: false`; the next sees what the
   * earlier ones wrote), then one after-write. The writes of this synchronous run reach disk as one
   * commit and the answers wait for it (Cloudflare docs, Durable Objects: "automatic write
   * coalescing" and the output gate).
   * @returns one outcome per `decide`, in order
   */
  async each<T>(decides: readonly ((nowMs: number) => T)[]): Promise<BatchOutcome<T>[]> {
    const now = this.p.clock();
    this.p.transactionSync(() => this.p.sweep(now));
    const outcomes = decides.map((decide): BatchOutcome<T> => {
      try {
        return {
          ok: true,
          value: this.p.transactionSync(() => {
            const answer = decide(now);
            this.p.settle(now);
            return answer;
          }),
        };
      } catch (err) {
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    });
    await this.afterCommit();
    return outcomes;
  }

  /**
   * The after-write of committed writes: a failure there (an alarm call refused, a signal not
   * delivered) must not turn their answers into errors, or a client retries or reports as failed
   * a write that happened.
   */
  private async afterCommit(): Promise<void> {
    try {
      await this.p.afterWrite();
    } catch (err) {
      console.error('after-write failed; the committed write stands:', err instanceof Error ? err.message : String(err));
    }
  }
}
