// The release law against its targets over 20 seeded crowd simulations of bench:control's real
// path (test/helpers/control-targets.ts; `npm run sim:control` prints the same table): what every
// seed meets, and bounds on the misses docs/explanation/release-controller.md explains.
import { describe, expect, it } from 'vitest';
import { SIM_SEEDS, TARGETS, judgeSeed, targetTable } from '../helpers/control-targets';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

describe('release targets over 20 seeded simulations (knee, cliff, visit length, no-shows, report jitter varied)', () => {
  it('finds the capacity within 20 s, collapses at most once after a halving and recovers within 30 s in every seed; bounds the misses', () => {
    const vs = SIM_SEEDS.map((seed) => judgeSeed(seed));
    console.log(targetTable(vs).join('\n'));
    // Every seed: the capacity within 20 s of the first report, at most one collapse after the
    // halving, and back to 0.90 of the capacity within 30 s of its return.
    for (const v of vs) {
      expect(v.reachS, `seed ${v.c.seed}`).toBeLessThanOrEqual(TARGETS.reachS);
      expect(v.collapsesAfterHalving, `seed ${v.c.seed}`).toBeLessThanOrEqual(1);
      expect(v.recoverS, `seed ${v.c.seed}`).toBeLessThanOrEqual(TARGETS.recoverS);
    }
    // The typical run never crosses the cliff: no collapse, no second over 2 x target.
    expect(median(vs.map((v) => v.collapses))).toBe(0);
    expect(median(vs.map((v) => v.over2xS))).toBe(0);
    // The misses (the docs say why): a cliff without delay warning crossed once on the ramp, and the
    // collapse a halving causes lasting as long as the visits admitted before it.
    expect(vs.filter((v) => v.over2xRampS === 0).length).toBeGreaterThanOrEqual(14);
    expect(vs.filter((v) => v.settleS <= TARGETS.settleS).length).toBeGreaterThanOrEqual(18);
    expect(vs.filter((v) => v.met).length).toBeGreaterThanOrEqual(9);
    for (const v of vs) expect(v.collapses, `seed ${v.c.seed}`).toBeLessThanOrEqual(2);
    expect(Math.max(...vs.map((v) => v.over2xS))).toBeLessThanOrEqual(85);
  }, 120_000);
});
