// `npm run crowd -- --visitors 700`: simulated visitors through the gateway's real HTTP path (the
// closed-loop benchmark of the release controller): prints admissions per minute against the
// maximum, what binds over time, the origin's p99, holds, sales and the inventory's consistency.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CROWD, runCrowd, type OriginModel } from './lib/crowd-run.ts';
import { resaleRound } from './lib/crowd-resale.ts';
import { admittedPerMinute, bindingTimeline, formatSeries, perSecondSeries, queuedSpan, releasedPerMinute } from './lib/crowd-measures.ts';
import { parseDevVars } from './lib/dev-secrets.ts';
import { ROOT, freePort, startDevServer, type DevServer } from './lib/dev-server.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const { values: opts } = parseArgs({
  options: {
    visitors: { type: 'string', default: '500' },
    url: { type: 'string' },
    seats: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '1200' },
    'min-rate': { type: 'string' },
    'max-active': { type: 'string', default: '200' },
    'target-p99': { type: 'string', default: '800' },
    'max-seconds': { type: 'string', default: '600' },
    concurrency: { type: 'string', default: '48' },
    coupled: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    'no-show': { type: 'string', default: '0' },
    'stay-s': { type: 'string', default: '0' },
    origin: { type: 'string' },
    'origin-after': { type: 'string', multiple: true },
    'slow-origin-after': { type: 'string' },
    json: { type: 'string' },
    resale: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(`npm run crowd -- [options]
  Creates a fresh event (crowd-<time>) on the gateway and sends simulated visitors through it.
  --visitors N      visitors (500)                 --seats N        seats of the event (1000)
  --rate N          max release rate per minute (1200)
  --min-rate N      min release rate per minute (rate / 4)
  --max-active N    max active visitors (200)      --target-p99 MS  the event's p99 target (800)
  --max-seconds N   stop after this long (600)     --seed N         PRNG seed (1)
  --concurrency N   joins' and waiting visitors' polls in flight at most (48); admitted visitors
                    are each their own browser (one request at a time, no shared cap)
  --coupled         the coupled crowd: admitted visitors' requests also share the
                    --concurrency cap, and a stay is stay-s / 2 pages however long each takes
  --no-show S       share of visitors (0..1) who join and never come back (0)
  --stay-s N        admitted visitors browse the sale page for N s of wall time (a page, ~2 s of
                    thought, again) before buying (0)
  --origin MS:KNEE  the origin stub's capacity model: base latency ms and the concurrent requests
                    it serves at that latency (the stub's default is 20:50)
  --origin-after S:MS:KNEE  change the model after S seconds (repeatable), e.g. halve the knee
  --slow-origin-after S     shorthand for --origin-after S:900:5 (an origin slower than the target)
  --url URL         a running gateway (else one is started on a free port with temporary storage)
  --resale SHARE    the event takes returns; after the sale, SHARE (0..1) of the sold orders are
                    returned and resold to waitlisted accounts, each timed from return to confirmed
                    resale (needs a sold-out event: more buyers than --seats)
  --json FILE       also write the whole run (per-second series and samples, every rate and limit
                    change, counts) to FILE`);
  process.exit(0);
}

const model = (ms: string, knee: string): OriginModel => ({ baseLatencyMs: Number(ms), capacityKnee: Number(knee) });
const changes = (opts['origin-after'] ?? []).map((x) => {
  const [s, ms, knee] = x.split(':');
  return { atS: Number(s), model: model(ms!, knee!) };
});
if (opts['slow-origin-after']) changes.push({ atS: Number(opts['slow-origin-after']), model: model('900', '5') });
const rate = Number(opts.rate);
const crowd = {
  ...DEFAULT_CROWD,
  visitors: Number(opts.visitors),
  seats: Number(opts.seats),
  maxPerMinute: rate,
  minPerMinute: Number(opts['min-rate'] ?? Math.max(1, Math.floor(rate / 4))),
  maxActive: Number(opts['max-active']),
  targetP99Ms: Number(opts['target-p99']),
  maxSeconds: Number(opts['max-seconds']),
  concurrency: Number(opts.concurrency),
  coupled: opts.coupled,
  seed: Number(opts.seed),
  noShowShare: Number(opts['no-show']),
  staySeconds: Number(opts['stay-s']),
  origin: opts.origin ? model(...(opts.origin.split(':') as [string, string])) : null,
  originChanges: changes,
  resale: opts.resale !== undefined,
};

async function reachable(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/.well-known/jwks.json`)).ok;
  } catch {
    return false;
  }
}

let server: Pick<DevServer, 'url' | 'adminToken'> & { stop?: () => Promise<void> };
let state: string | null = null;
if (opts.url !== undefined && (await reachable(opts.url))) {
  const vars = existsSync(join(ROOT, '.dev.vars')) ? parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')) : {};
  server = { url: opts.url, adminToken: process.env.ADMIN_TOKEN ?? vars.ADMIN_TOKEN ?? '' };
  console.log(`Using the gateway at ${server.url}`);
} else {
  state = mkdtempSync(join(tmpdir(), 'wr-crowd-'));
  console.log('Starting a gateway (wrangler dev on a free port, temporary storage)...');
  server = await startDevServer({ port: await freePort(), persistTo: state, quiet: true });
}
console.log(
  `${crowd.visitors} visitors, release rate ${crowd.minPerMinute}-${crowd.maxPerMinute}/min, max active ${crowd.maxActive}, ` +
    `no-shows ${crowd.noShowShare}, stay ${crowd.staySeconds} s\n`,
);
const r = await runCrowd(server, crowd);
if (opts.json) writeFileSync(opts.json, JSON.stringify({ options: crowd, series: perSecondSeries(r), result: r }, null, 1));
const q = queuedSpan(r);
const after = (r.firstReportS ?? 0) + 30;
const row = (k: string, v: string | number) => console.log(`  ${k.padEnd(58)} ${v}`);
const ratio = (x: number) => `${x.toFixed(0)}/min = ${(x / crowd.maxPerMinute).toFixed(2)} x the maximum ${crowd.maxPerMinute}/min`;
const p99s = r.samples.filter((s) => s.p99 !== null).map((s) => s.p99!);
console.log(`\nCrowd summary (${r.elapsedS.toFixed(0)} s, event ${r.eventId})`);
row('visitors joined / admitted / no-shows', `${r.joined} / ${r.admitted} / ${r.noShows}`);
row(`admitted per minute while visitors waited (${q.fromS.toFixed(0)}-${q.toS.toFixed(0)} s)`, ratio(admittedPerMinute(r, q.fromS, q.toS)));
row(
  `admitted per minute from 30 s after the first report (${after.toFixed(0)} s)`,
  after < q.toS ? ratio(admittedPerMinute(r, after, q.toS)) : `- (nobody waited after ${q.toS.toFixed(0)} s)`,
);
row('places released per minute while visitors waited', ratio(releasedPerMinute(r, q.fromS, q.toS)));
row('first health report acted on at', r.firstReportS === null ? 'never' : `${r.firstReportS.toFixed(0)} s`);
row('origin p99 seen (median / max of reports), ms', p99s.length ? `${median(p99s)} / ${Math.max(...p99s)}` : '-');
const visitS = r.visits.map((v) => v.toS - v.fromS);
row('visits finished / their length (median / 90th pct / max), s', visitS.length ? `${visitS.length} / ${quantiles(visitS)}` : '0');
row(
  'requests in flight, most seen (shared client / admitted visitors)',
  `${Math.max(0, ...r.samples.map((s) => s.sharedInFlight))} / ${Math.max(0, ...r.samples.map((s) => s.visitorInFlight))}`,
);
row('what bound admissions, over time', '');
console.log(`    ${bindingTimeline(r)}`);
console.log('  rate and limit changes, newest first:');
for (const e of r.rateLog.slice(0, 10))
  console.log(`    ${new Date(e.at).toISOString().slice(11, 19)}  ${String(e.rate).padStart(5)}/min  ${e.reason}`);
console.log('  series (released and claimed summed over each 5 s; --json has every second):');
for (const line of formatSeries(perSecondSeries(r), 5)) console.log(`  ${line}`);
const c = r.counts;
row('holds granted / refused (409) / other errors', `${c.holdsGranted} / ${c.holdsRefused} / ${c.holdErrors}`);
row('checkouts paid / declined card / failed / PROCESSING followed', `${c.paid} / ${c.declined} / ${c.checkoutFailed} / ${c.processing}`);
row('seats sold (inventory)', r.soldSeats);
row('HTTP 5xx answers / 429 answers (one shared IP)', `${c.httpErrors} / ${c.rateLimited}`);
let consistent = r.consistent;
if (opts.resale !== undefined) {
  const rr = await resaleRound(server, r.eventId, Number(opts.resale));
  if (rr.skipped) row('resale round', `skipped: ${rr.skipped}`);
  else {
    row('orders returned / resold to the waitlist / refunds', `${rr.returned} / ${rr.resold} / ${rr.refunds}`);
    if (rr.waitlistClosed > 0) row('orders not returned: the waitlist closed as unpaid holds ended', rr.waitlistClosed);
    row('return to confirmed resale (median / 90th pct / max), ms', rr.returnToResaleMs.length ? quantiles(rr.returnToResaleMs) : '-');
    row('consistency after the resale', rr.consistent ? 'PASS' : 'FAIL');
    consistent &&= rr.consistent && rr.resold === rr.returned && rr.refunds >= rr.resold;
  }
}
console.log(`\nConsistency check: ${consistent ? 'PASS' : 'FAIL'}`);
await server.stop?.();
if (state) rmSync(state, { recursive: true, force: true });
process.exit(consistent ? 0 : 1);

function quantiles(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(1);
  return `${at(0.5)} / ${at(0.9)} / ${s.at(-1)!.toFixed(1)}`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
