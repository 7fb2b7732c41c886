// `npm run bench:history`: the cost of the per-minute history inside a WaitingRoom, the write the
// alarm makes once a minute. Rows of admissions seeded straight into the room's tables, then the
// history of MINUTES minutes written back to back inside the object (one request), so the time per
// minute is the object's own work; measured with no earlier admissions and beside a backlog of a
// sale's earlier buyers (the table keeps every admission), with a no-op object RPC as the floor.
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { bundleWorker } from '../scripts/lib/bundle.ts';
import { writePageAssets } from '../scripts/page-assets.ts';
import { BENCH_ASSETS, median } from './harness.ts';

const REPS = Number(process.env.BENCH_REPS) || 3;
const MINUTES = 60;
/** Admissions per minute at the sizing example (docs/explanation/scaling.md: 10,000 a minute at most). */
const PER_MINUTE = [1_000, 10_000];
/** Earlier admissions in the table: none, and a sale's worth. */
const BACKLOG = [0, 200_000];

async function main(): Promise<void> {
  bundleWorker('bench/history-cost-worker.ts', '.build/history-cost-worker.js');
  await writePageAssets();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      port: 0,
      handleStructuredLogs: () => undefined,
      workers: [
        {
          name: 'history',
          modules: true,
          scriptPath: '.build/history-cost-worker.js',
          compatibilityDate: '2026-11-01',
          durableObjects: {
            WAITING_ROOM: { className: 'HistoryRoom', useSQLite: true },
            NOOP: { className: 'Noop', useSQLite: true },
          },
          assets: BENCH_ASSETS,
        },
      ],
    }),
  );
  const base = (await mf.ready).toString().replace(/\/$/, '');
  const get = async (path: string): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(base + path);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.json();
    return performance.now() - t0;
  };
  const rows: [string, number[]][] = [['no-op object RPC (floor), ms per call', []]];
  for (const perMinute of PER_MINUTE)
    for (const backlog of BACKLOG) rows.push([`${perMinute.toLocaleString()} admissions/min, ${backlog.toLocaleString()} earlier`, []]);
  for (let rep = 0; rep < REPS; rep++) {
    rows[0]![1].push((await get('/noop-rpc?n=1000')) / 1000);
    let k = 1;
    for (const perMinute of PER_MINUTE)
      for (const backlog of BACKLOG) {
        const event = `history-${rep}-${perMinute}-${backlog}-${Date.now()}`;
        const t0 = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 3_600_000;
        await get(`/configure?event=${event}`);
        await get(`/seed?event=${event}&backlog=${backlog}&perMinute=${perMinute}&minutes=${MINUTES}&t0=${t0}`);
        rows[k++]![1].push((await get(`/history?event=${event}&minutes=${MINUTES}&t0=${t0}`)) / MINUTES);
      }
  }
  await mf.dispose();
  const baseline = median(rows[1]![1]);
  console.log(`History write per minute inside one WaitingRoom, median of ${REPS} (${MINUTES} minutes each)`);
  console.log('case'.padEnd(44) + 'ms/minute'.padStart(10) + '  vs 1,000/min, none earlier');
  for (const [name, xs] of rows) {
    const m = median(xs);
    console.log(name.padEnd(44) + m.toFixed(3).padStart(10) + (name.startsWith('no-op') ? '' : `  ${(m / baseline).toFixed(2)}`));
  }
}

await main();
