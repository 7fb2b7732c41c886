// `kill -9` of `npm start` (of npm, or of the node process it runs) leaves no workerd holding the
// port, so a restart on the same port works; a port that is taken is refused with a message naming
// who holds it. Before the process guard (scripts/lib/process-guard.ts), wrangler and its workerd
// processes lived on in their own process group after the kill and kept the port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, nodeBinary, parentPid, portIsFree, ROOT } from '../../scripts/lib/dev-server.ts';

const state = mkdtempSync(join(tmpdir(), 'wr-orphans-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));

/** How soon after the kill the port must be free again, ms (the guard's grace is 3 s). */
const FREED_WITHIN_MS = 8_000;

/** Pids of the workerd processes listening on 127.0.0.1:`port` (their command line names it). */
function workerdsOn(port: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes('workerd') && cmd.includes(`--socket-addr=entry=127.0.0.1:${port}\0`)) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Whether `pid` runs (exists and is no zombie). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The children of `pid` (from /proc), to find the process npm started. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((p) => parentPid(p) === pid);
}

/** Starts `command` (npm start, or node scripts/dev.ts) on `port` and waits until the gateway answers. */
async function start(command: string, args: string[], port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, {
    cwd: ROOT,
    // A throw-away storage folder: never the .wrangler/state of a developer's own npm start.
    env: { ...process.env, PORT: String(port), PERSIST_TO: state, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}\n${log}`);
    const up = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (up && log.includes('Waiting room gateway is up')) return { child, output: () => log };
    if (Date.now() > deadline) throw new Error(`${command} did not start within 90 s\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits until nothing listens on `port` and no workerd of it is left, or FREED_WITHIN_MS; returns the ms it took. */
async function freed(port: number): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < FREED_WITHIN_MS) {
    if ((await portIsFree(port)) && workerdsOn(port).length === 0) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `port ${port} still held ${FREED_WITHIN_MS} ms after the kill, by workerd ${workerdsOn(port).join(', ') || '(none: another process)'}`,
  );
}

describe('kill -9 of npm start', () => {
  it('of the node process it runs: the port is free within the bound, and a restart on it works', async () => {
    const port = await freePort();
    const first = await start(nodeBinary(), ['scripts/dev.ts'], port);
    expect(workerdsOn(port).length).toBeGreaterThan(0);
    process.kill(first.child.pid!, 'SIGKILL');
    expect(await freed(port)).toBeLessThan(FREED_WITHIN_MS);
    const again = await start(nodeBinary(), ['scripts/dev.ts'], port);
    process.kill(again.child.pid!, 'SIGTERM');
    await freed(port);
  });

  it('of npm itself (its `sh -c` and node outlive it): the port is free within the bound', async () => {
    const port = await freePort();
    const npm = await start('npm', ['start'], port);
    const below = childrenOf(npm.child.pid!);
    expect(below.length, 'npm started its script').toBeGreaterThan(0);
    process.kill(npm.child.pid!, 'SIGKILL');
    expect(await freed(port)).toBeLessThan(FREED_WITHIN_MS);
    // npm's script shell and node end too (a zombie waiting for its new parent to reap it counts as ended).
    const deadline = Date.now() + FREED_WITHIN_MS;
    while (below.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(below.filter(running)).toEqual([]);
  });
});

describe('npm start on a port that is taken', () => {
  it('exits 1 at once with a message naming the process that holds it, and touches nothing', async () => {
    const holder = createServer();
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    // The next port is taken too (the message suggested PORT+1 without checking it).
    const next = createServer();
    await new Promise<void>((resolve) => next.once('error', () => resolve()).listen(port + 1, '127.0.0.1', () => resolve()));
    try {
      const child = spawn(nodeBinary(), ['scripts/dev.ts'], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(err).toContain(`npm start: port ${port} on 127.0.0.1 is in use by pid ${process.pid} (`);
      const suggested = Number(/or start on another port: PORT=(\d+) npm start/.exec(err)?.[1]);
      expect(suggested).not.toBe(port);
      expect(suggested).not.toBe(port + 1);
      expect(await portIsFree(suggested)).toBe(true);
      expect(err).not.toMatch(/\n\s+at /); // a message, not a stack trace
      expect(holder.listening).toBe(true);
    } finally {
      holder.close();
      next.close();
    }
  });
});
