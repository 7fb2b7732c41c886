// `npm run bench:inventory`: the measured in-object cost of each Inventory call at the sizing
// example (50,000 seats), for the per-second call budget in docs/explanation/scaling.md. Each call kind runs
// back to back inside one object (one request runs N calls), so the time per call is the object's
// own work; a no-op object RPC measured in the same run is the floor a call's round trip adds.
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { bundleWorker } from '../scripts/lib/bundle.ts';
import { BENCH_ASSETS } from './harness.ts';
import { writePageAssets } from '../scripts/page-assets.ts';

const REPS = Number(process.env.BENCH_REPS) || 3;
const SEATS = 50_000;
const PER_ROW = 100;
const N = Number(process.env.BENCH_CALLS) || 2_000;
const MAPS = 20;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  bundleWorker('bench/inventory-budget-worker.ts', '.build/inventory-budget-worker.js');
  await writePageAssets();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      port: 0,
      handleStructuredLogs: () => undefined,
      workers: [
        {
          name: 'budget',
          modules: true,
          scriptPath: '.build/inventory-budget-worker.js',
          compatibilityDate: '2026-11-01',
          durableObjects: {
            INVENTORY: { className: 'BudgetInventory', useSQLite: true },
            NOOP: { className: 'Noop', useSQLite: true },
          },
          assets: BENCH_ASSETS,
        },
      ],
    }),
  );
  const base = (await mf.ready).toString().replace(/\/$/, '');
  const get = async (path: string): Promise<{ ms: number; value: number }> => {
    const t0 = performance.now();
    const res = await fetch(base + path);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    const value = (await res.json()) as number;
    return { ms: performance.now() - t0, value };
  };
  const config = {
    seats: SEATS,
    seatsPerRow: PER_ROW,
    seatPriceMinor: 5000,
    currency: 'EUR',
    tiers: [],
    holdTtlMs: 300_000,
    paymentGraceMs: 120_000,
    maxSeatsPerAccount: 6,
  };
  const costs: Record<string, number[]> = {};
  const add = (k: string, msPerCall: number) => (costs[k] ??= []).push(msPerCall);
  for (let rep = 0; rep < REPS; rep++) {
    const event = `budget-${rep}-${Date.now()}`;
    const e = `event=${event}`;
    await fetch(`${base}/configure?${e}&config=${encodeURIComponent(JSON.stringify(config))}`);
    add('no-op object RPC (floor)', (await get(`/noop-rpc?n=${N}`)).ms / N);
    // Holds, then payment-pending and confirm on them (a sale), then holds that are released, then
    // holds that expire in one alarm; offsets keep every batch on free seats.
    const h1 = await get(`/holds?${e}&n=${N}&offset=0&seats=${SEATS}&perRow=${PER_ROW}`);
    if (h1.value !== N) throw new Error(`only ${h1.value} of ${N} holds granted`);
    add('hold (2 seats)', h1.ms / N);
    add('getHold (origin read)', (await get(`/on-holds?${e}&action=get`)).ms / N);
    add('payment-pending', (await get(`/on-holds?${e}&action=payment_pending`)).ms / N);
    add('confirm', (await get(`/on-holds?${e}&action=confirm`)).ms / N);
    await get(`/holds?${e}&n=${N}&offset=${N}&seats=${SEATS}&perRow=${PER_ROW}`);
    add('release', (await get(`/on-holds?${e}&action=release`)).ms / N);
    await get(`/holds?${e}&n=${N}&offset=${2 * N}&seats=${SEATS}&perRow=${PER_ROW}`);
    add('expiry (one alarm, per hold)', (await get(`/expiry?${e}`)).ms / N);
    const version = (await get(`/version?${e}`)).value;
    // Maps are built (read and serialized) once a second, then handed out as that one string.
    add('seat map snapshot built (every seat read)', (await get(`/maps?${e}&n=${MAPS}&cold=1`)).ms / MAPS);
    add('seat map snapshot reused (within 1 s)', (await get(`/maps?${e}&n=${N}`)).ms / N);
    add('seat map snapshot copied out by RPC', (await get(`/map-rpc?${e}&n=${N}`)).ms / N);
    add('seat map delta (256 versions) built', (await get(`/maps?${e}&n=${N}&since=${version - 256}&cold=1`)).ms / N);
    add('seat map delta copied out by RPC', (await get(`/map-rpc?${e}&n=${N}&since=${version - 256}`)).ms / N);
    // Resale on a sold-out event of 2 x N seats: N waiting accounts, N returns (each offered to the
    // next account), N acceptances, N resales paid (with their refunds); then N returns whose offers
    // lapse in one alarm and pass to N more accounts.
    const r = `event=${event}-resale`;
    const resaleConfig = {
      ...config,
      seats: 2 * N,
      resale: { returnDeadlineMs: Date.now() + 86_400_000, offerTtlMs: 600_000, feeMinor: 250, refund: 'on_resale' },
    };
    await fetch(`${base}/configure?${r}&config=${encodeURIComponent(JSON.stringify(resaleConfig))}`);
    if ((await get(`/sell-out?${r}&n=${N}&seats=${2 * N}&perRow=${PER_ROW}`)).value !== N) throw new Error('resale event not sold out');
    add('waitlist join', (await get(`/joins?${r}&n=${N}&prefix=a`)).ms / N);
    add('return (2 seats, offered to the next account)', (await get(`/returns?${r}`)).ms / N);
    add('offer accepted', (await get(`/offers?${r}&action=accept`)).ms / N);
    add('offer paid: resale + refund (confirm)', (await get(`/offers?${r}&action=confirm`)).ms / N);
    const l = `event=${event}-lapse`;
    await fetch(`${base}/configure?${l}&config=${encodeURIComponent(JSON.stringify(resaleConfig))}`);
    await get(`/sell-out?${l}&n=${N}&seats=${2 * N}&perRow=${PER_ROW}`);
    await get(`/joins?${l}&n=${2 * N}&prefix=b`);
    await get(`/returns?${l}`);
    add('offer lapsed and passed on (one alarm, per offer)', (await get(`/expiry?${l}`)).ms / N);
  }
  await mf.dispose();
  const floor = median(costs['no-op object RPC (floor)']!);
  console.log(`Inventory call costs at ${SEATS.toLocaleString()} seats, median of ${REPS} (${N} calls each; maps ${MAPS})`);
  console.log('call'.padEnd(44) + 'ms/call'.padStart(9) + '  vs no-op RPC');
  for (const [k, xs] of Object.entries(costs)) {
    const m = median(xs);
    console.log(k.padEnd(44) + m.toFixed(3).padStart(9) + `  ${(m / floor).toFixed(2)}`);
  }
}

await main();
