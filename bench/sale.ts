// `npm run bench:sim`: the sale at full size, simulated (bench/sale-sim.ts) at 1, 2, 5 and 10 times
// the sizing example: per object kind, the requests per second of its busiest object against the
// platform's guidance, the share of each second it is busy, the call that costs it most, and the
// queueing delay of its answers over 20 simulated seconds of the peak. Deterministic; no network.
import { COSTS, GUIDANCE_PER_S, SIZING, UNIT_MS, firstSaturated, scaled, simulate } from './sale-sim.ts';

const SCALES = [1, 2, 5, 10];
const SECONDS = 20;

const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(1)} ms`);

console.log(
  `Sizing example at its peak: ${SIZING.arrivals.toLocaleString()} arrivals in ${SIZING.saleSeconds} s (${(SIZING.burstShare * 100).toFixed(0)} % in the first ${SIZING.burstSeconds} s), ` +
    `${SIZING.seats.toLocaleString()} seats, ${SIZING.holdsPerS} holds, ${SIZING.paymentPendingPerS} payment-pending, ${SIZING.confirmsPerS} confirms per second, ` +
    `${SIZING.dataCentres} data centres x ${SIZING.isolatesPerDc} isolates; ${SIZING.queueShards} queue shards, ${SIZING.sections} sections, ${SIZING.ledgerShards} ledger shards.`,
);
console.log(
  `Unit: one no-op object RPC = ${UNIT_MS.toFixed(3)} ms (costs in bench/sale-sim.ts COSTS, e.g. hold ${(COSTS.holdCall + COSTS.holdEach).toFixed(2)}, confirm ${COSTS.confirm}, delta built ${COSTS.mapDeltaBuild256} and kept ${COSTS.mapDeltaCopy256}); guidance ${GUIDANCE_PER_S} req/s per object; ${SECONDS} s of the peak simulated per object.\n`,
);
function table(): void {
  for (const x of SCALES) {
    const results = simulate(scaled(SIZING, x), SECONDS);
    console.log(`x${x}`);
    console.log(`  ${'object (busiest of N)'.padEnd(24)}   req/s  vs 1,000    busy  top call               p99 wait   max wait`);
    for (const r of results)
      console.log(
        `  ${`${r.object} (${r.count})`.padEnd(24)} ${r.requestsPerS.toFixed(0).padStart(7)}  ${r.vsGuidance.toFixed(2).padStart(8)}  ${r.busy
          .toFixed(2)
          .padStart(
            6,
          )}  ${r.topCall.padEnd(21)} ${fmtMs(r.p99WaitMs).padStart(9)}  ${fmtMs(r.maxWaitMs).padStart(9)}${r.busy >= 1 ? '  (saturated: the wait grows with the window)' : ''}`,
      );
    const first = firstSaturated(results);
    console.log(`  first to saturate: ${first ? `${first.object}, by ${first.topCall}` : 'none'}\n`);
  }
}

table();
