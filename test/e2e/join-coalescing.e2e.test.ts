// Join coalescing over real HTTP, in workerd with the runtime's own cross-request promise
// resolution (the bench Worker under Miniflare, loopback, a free port): concurrent joins share
// shard calls and each gets its own place; a client that leaves while its request sends a batch,
// or while it is queued to send the next one, strands nobody (src/lib/coalesce.ts). Under
// Miniflare a client that leaves does not cancel its request (checked: the handler still ran to
// its end); on Cloudflare it does, unless a waitUntil keeps it, which every caller registers. The
// case of a sender cancelled anyway is test/unit/coalesce.test.ts's batch that never answers.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type BenchGateway } from '../../bench/harness.ts';
import { bundleWorker } from '../../scripts/lib/bundle.ts';

let gw: BenchGateway;

beforeAll(async () => {
  // Its own bundle, so a bench running at the same time keeps its own.
  bundleWorker('bench/bench-worker.ts', '.build/bench-worker-e2e.js');
  gw = await startGateway({ scriptPath: '.build/bench-worker-e2e.js' });
});

afterAll(async () => {
  await gw?.mf.dispose();
});

type Stats = { batches: number; items: number };
const batchStats = async (): Promise<{ real: Stats; slow: Stats }> =>
  (await (await fetch(`${gw.base}/__bench/join-batches`)).json()) as { real: Stats; slow: Stats };

/** The place a queue ticket names, as one sortable number (bucket-major); the claims are read, not verified. */
function ticketRank(ticket: string): number {
  const { pl } = JSON.parse(Buffer.from(ticket.split('.')[1]!, 'base64url').toString()) as { pl: [number, number, number] };
  return pl[0] * 1e6 + pl[1];
}

/** A join by a new visitor (no cookie) through `prefix`; its status and its place. */
async function join(eventId: string, prefix = ''): Promise<{ status: number; rank: number | null }> {
  const res = await fetch(`${gw.base}${prefix}/_wr/events/${eventId}/join`, { method: 'POST', headers: { accept: 'application/json' } });
  const body = (await res.json()) as { queueTicket?: string };
  return { status: res.status, rank: body.queueTicket ? ticketRank(body.queueTicket) : null };
}

/** A join sent on a raw connection that the test closes (`leave()`) before the answer comes. */
function joinThenLeave(eventId: string, prefix: string): { leave: () => void } {
  const url = new URL(gw.base);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  socket.write(
    `POST ${prefix}/_wr/events/${eventId}/join HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\nContent-Length: 0\r\n\r\n`,
  );
  return { leave: () => socket.destroy() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fresh bench event whose cursor the edge has cached (one join first). */
async function event(): Promise<string> {
  const eventId = `co-${Math.random().toString(36).slice(2, 10)}`;
  await gw.createEvent(eventId);
  // The cursor cached at the edge, so every later join takes the same path.
  expect((await join(eventId)).status).toBe(200);
  return eventId;
}

describe('join coalescing over HTTP', () => {
  it('40 concurrent joins take fewer shard calls than 40; each visitor gets its own place', async () => {
    const eventId = await event();
    const before = (await batchStats()).real;
    const answers = await Promise.all(Array.from({ length: 40 }, () => join(eventId)));
    const after = (await batchStats()).real;
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.rank)).size).toBe(40);
    expect(after.items - before.items).toBe(40);
    expect(after.batches - before.batches).toBeLessThan(40);
  });

  it('the client of the request sending a batch leaves mid-call: the others of the next batch get their places, and later joins work', async () => {
    const eventId = await event();
    const before = (await batchStats()).slow;
    const leader = joinThenLeave(eventId, '/__bench/slow'); // its batch stays in flight 400 ms
    await sleep(100);
    const followers = Array.from({ length: 10 }, () => join(eventId, '/__bench/slow'));
    await sleep(50);
    leader.leave();
    const t0 = Date.now();
    const answers = await Promise.all(followers);
    // Answered by the batch, not by a caller giving up on a stalled one (DEFAULT_STALL_MS, 10 s).
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.rank)).size).toBe(10);
    const after = (await batchStats()).slow;
    // The leader's batch of one, then the ten together.
    expect(after.items - before.items).toBe(11);
    expect(after.batches - before.batches).toBe(2);
    const t1 = Date.now();
    expect((await join(eventId, '/__bench/slow')).status).toBe(200);
    expect(Date.now() - t1).toBeLessThan(3_000);
  });

  it('the client at the head of the next batch leaves while it waits: its request still sends that batch, and the others get their places', async () => {
    const eventId = await event();
    const before = (await batchStats()).slow;
    const first = join(eventId, '/__bench/slow');
    await sleep(100);
    const head = joinThenLeave(eventId, '/__bench/slow');
    await sleep(50);
    const rest = Array.from({ length: 5 }, () => join(eventId, '/__bench/slow'));
    await sleep(50);
    head.leave();
    const t0 = Date.now();
    const answers = await Promise.all([first, ...rest]);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.rank)).size).toBe(6);
    const after = (await batchStats()).slow;
    expect(after.items - before.items).toBe(7);
    expect(after.batches - before.batches).toBe(2);
  });
});
