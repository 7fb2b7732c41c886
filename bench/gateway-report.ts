// The gateway bench's table (bench/gateway.ts prints it after the last repetition): each row's
// medians and its ratio and CPU over its baseline, then, over more than one repetition, each
// row's spread (min-max) with its ratio and CPU over the baseline taken pair by pair.
import { median, type Sample } from './harness.ts';
import type { Medians } from './gateway-context.ts';
import { ROWS } from './gateway-rows.ts';

/** The medians of `samples` (req/s, workerd CPU per answer in us) and `extras`, by scenario id or figure name. */
export function mediansOf(samples: Map<string, Sample[]>, extras: Map<string, number[]>): Medians {
  return {
    rps: (id) => (samples.has(id) ? median(samples.get(id)!.map((s) => s.rps)) : NaN),
    cpu: (id) => (samples.has(id) ? median(samples.get(id)!.map((s) => s.cpuUs)) : NaN),
    perRep: (id) => samples.get(id)?.map((s) => s.rps) ?? [],
    extra: (name) => median(extras.get(name) ?? [NaN]),
  };
}

/**
 * Prints the table of ROWS whose scenario ran: req/s, p50 and p99 ms, ratio to the baseline, CPU
 * per answer (us) and its difference to the baseline's, the note and the target's verdict.
 * @param reps the repetitions the medians are taken over (the header says it)
 */
export function printTable(samples: Map<string, Sample[]>, m: Medians, reps: number): void {
  const cell = (v: number, digits: number) => (Number.isNaN(v) ? '-' : v.toFixed(digits)).padStart(8);
  // cpu us: the workerd processes' user + system CPU over the row's window per answer; +us: the
  // row's CPU per answer minus its baseline's (`vs`), the gateway's own share on top of it.
  console.log(`${`scenario (median of ${reps})`.padEnd(42)}     req/s    p50 ms    p99 ms    ratio    cpu us     +us`);
  for (const row of ROWS) {
    const s = samples.get(row.id);
    if (!s) continue;
    const ratio = row.vs ? m.rps(row.id) / m.rps(row.vs) : 1;
    const verdict = row.target === undefined ? '' : ` (target >= ${row.target.toFixed(2)}: ${ratio >= row.target ? 'met' : 'missed'})`;
    console.log(
      [
        row.name.padEnd(42),
        cell(m.rps(row.id), 0),
        cell(median(s.map((x) => x.p50)), 1),
        cell(median(s.map((x) => x.p99)), 1),
        ratio.toFixed(2).padStart(7),
        cell(m.cpu(row.id), 0),
        row.vs ? `${(m.cpu(row.id) - m.cpu(row.vs) >= 0 ? '+' : '') + (m.cpu(row.id) - m.cpu(row.vs)).toFixed(0)}`.padStart(7) : '      -',
        `${row.note?.(m) ?? ''}${verdict}`,
      ].join('  '),
    );
  }
}

/**
 * Prints each row's range over the repetitions, and its ratio and CPU over its baseline taken pair
 * by pair within a repetition (the baseline ran minutes earlier or later in the same one).
 * @param loads the machine's load averages at the start and at the end, as printed
 */
export function printSpread(samples: Map<string, Sample[]>, reps: number, loads: { start: string; end: string }): void {
  console.log(`\nspread over the ${reps} repetitions (min-max); load average at start ${loads.start}, at end ${loads.end}:`);
  const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;
  for (const row of ROWS) {
    const s = samples.get(row.id);
    if (!s) continue;
    const base = row.vs ? samples.get(row.vs) : undefined;
    const pairs = base
      ? `; ratio ${range(
          s.map((x, k) => x.rps / base[k]!.rps),
          2,
        )}, +us ${range(s.map((x, k) => x.cpuUs - base[k]!.cpuUs))}`
      : '';
    console.log(`${row.name.padEnd(42)}  req/s ${range(s.map((x) => x.rps))}, cpu us ${range(s.map((x) => x.cpuUs))}${pairs}`);
  }
}
