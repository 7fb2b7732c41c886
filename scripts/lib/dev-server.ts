// Starts the gateway and the origin stub under `wrangler dev` and seeds an event through the admin API.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { portToPid } from 'pid-port';
import { ensureDevVars, parseDevVars } from './dev-secrets.ts';

/** Project root (this file lives in scripts/lib/). */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/** A running local gateway. */
export interface DevServer {
  url: string;
  adminToken: string;
  /** The process guard (scripts/lib/process-guard.ts): the leader of wrangler's process group. */
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The demo event `npm start` configures: 1,000 seats, FIFO, a slow release so a queue forms, and
 * holds a buyer may extend twice by 2 minutes (up to 15 minutes), so the sale page shows "More time".
 */
export const DEMO_EVENT = {
  name: 'Demo concert',
  policy: 'fifo',
  releaseRatePerMinute: 30,
  minReleaseRatePerMinute: 10,
  maxActiveVisitors: 100,
  seats: 1000,
  seatsPerRow: 25,
  holdTtlSeconds: 300,
  holdExtension: { maxExtensions: 2, extensionSeconds: 120, maxTotalSeconds: 900 },
  admissionTtlSeconds: 900,
} as const;

/** How long `startDevServer` waits for a taken port to be freed before it says who holds it, ms. */
const PORT_RELEASE_WAIT_MS = 5_000;

/** True once `port` is free, checked every 200 ms for up to `waitMs`. */
async function portFreeWithin(port: number, waitMs: number): Promise<boolean> {
  for (const until = Date.now() + waitMs; ; await new Promise((r) => setTimeout(r, 200))) {
    if (await portIsFree(port)) return true;
    if (Date.now() >= until) return false;
  }
}

/**
 * Whether wrangler's output says it lost a race for a port of its own (its inspector, a workerd
 * `direct:` socket) to a start at the same moment: worth one more start once the gateway's port is
 * free. Failing output: `Address already in use (socket
 * "direct:1:default")`.
 */
export function lostPortRace(log: string): boolean {
  return /Address already in use|EADDRINUSE/.test(log);
}

/**
 * Runs `wrangler dev` with both Workers (gateway first, so it owns the port) and waits until the
 * gateway answers. Local Durable Object storage goes to `persistTo`.
 *
 * @param opts.port TCP port on 127.0.0.1 (default 8787)
 * @param opts.inspectorPort devtools port (default: any free port)
 * @param opts.persistTo storage folder (default .wrangler/state)
 * @param opts.quiet hide wrangler's output
 * @param opts.vars gateway settings to override (`wrangler dev --var`), e.g. `{ ORIGIN_URL: 'http://127.0.0.1:8080' }`
 * @throws PortInUseError when `port` is taken (naming the holder: an orphaned workerd of this checkout, a running server, another process)
 * @throws Error when the gateway does not answer within 60 s
 */
export async function startDevServer(
  opts: { port?: number; inspectorPort?: number; persistTo?: string; quiet?: boolean; vars?: Record<string, string> } = {},
): Promise<DevServer> {
  ensureDevVars(ROOT);
  const port = opts.port ?? 8787;
  // wrangler would start, fail to bind and leave a confusing trace: say who holds the port instead.
  // A server killed a moment ago (kill -9, a test's restart) frees it within a second or two: wait
  // that long first (the kill9 e2e restarted into this check at once and was refused).
  if (!(await portFreeWithin(port, PORT_RELEASE_WAIT_MS))) throw new PortInUseError(port, await portHolder(port), await nextFreePort(port));
  // Run wrangler's JS entry with the project's Node (>= 22), whatever `node` is first on PATH.
  const wrangler = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const args = [
    'dev',
    '-c',
    writeDevConfig(),
    '-c',
    'origin-stub/wrangler.toml',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--persist-to',
    opts.persistTo ?? '.wrangler/state',
    '--show-interactive-dev-session=false',
    ...Object.entries(opts.vars ?? {}).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
  ];
  // wrangler runs under a process guard (process-guard.ts), the leader of a process group of its own
  // (`detached`): stop() signals the whole group, and if this process dies without stopping it
  // (`kill -9`, a closed terminal) the guard reads end-of-file on its stdin and takes the group down
  // within GUARD_GRACE_MS, so no workerd keeps holding the port.
  const launch = () => {
    const proc = spawn(nodeBinary(), [join(ROOT, 'scripts', 'lib', 'process-guard.ts'), nodeBinary(), wrangler, ...args], {
      cwd: ROOT,
      // Output is kept for the error message; shown live unless quiet.
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false' },
      detached: true,
    });
    log = '';
    const keep = (out: NodeJS.WriteStream) => (d: Buffer) => {
      // The tail only (an error message's worth): a dev server runs for hours and logs every request.
      log = (log + d.toString()).slice(-65_536);
      if (!opts.quiet) out.write(d);
    };
    proc.stdout.on('data', keep(process.stdout));
    proc.stderr.on('data', keep(process.stderr));
    return proc;
  };
  let log = '';
  let child = launch();
  let retried = false;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    // Two starts at the same moment may pick the same free port for a socket of their own
    // (wrangler's inspector, workerd's `direct:` sockets): the loser exits with "Address already in
    // use". Once, start again: the other one holds its ports by now.
    if (child.exitCode !== null && !retried && lostPortRace(log) && (await portIsFree(port))) {
      retried = true;
      if (!opts.quiet) console.error(`wrangler dev lost a port race with another start; starting again`);
      child = launch();
      continue;
    }
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}\n${log}`);
    try {
      const res = await fetch(`${url}/.well-known/jwks.json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      process.kill(-child.pid!, 'SIGTERM');
      throw new Error(`gateway did not start within 60 s\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const adminToken = parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ADMIN_TOKEN ?? '';
  return {
    url,
    adminToken,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      try {
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already (killed from outside, e.g. the kill9 e2e): nothing to stop.
      }
    },
  };
}

/**
 * Creates or updates an event through the admin API.
 * @throws Error with the problem details when the gateway refuses
 */
export async function putEvent(server: Pick<DevServer, 'url' | 'adminToken'>, eventId: string, config: object): Promise<void> {
  const res = await fetch(`${server.url}/_wr/admin/events/${eventId}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(config),
  });
  if (!res.ok) throw new Error(`PUT event ${eventId}: ${res.status} ${await res.text()}`);
}

/**
 * The event as the admin API reads it (GET /_wr/admin/events/{id}: config, queue, inventory).
 * @throws Error with the problem details when the gateway refuses
 */
export async function getEvent<T>(server: Pick<DevServer, 'url' | 'adminToken'>, eventId: string): Promise<T> {
  const res = await fetch(`${server.url}/_wr/admin/events/${eventId}`, { headers: { authorization: `Bearer ${server.adminToken}` } });
  if (!res.ok) throw new Error(`GET event ${eventId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The generated local config (git-ignored), next to wrangler.toml so its paths and `.dev.vars` resolve the same. */
export const DEV_CONFIG = 'wrangler.dev.toml';

/**
 * Writes DEV_CONFIG: wrangler.toml plus the ORIGIN service binding to the origin stub. The
 * deployable wrangler.toml has no such binding (Cloudflare refuses a binding to a Worker that does
 * not exist), so local runs add it here instead of keeping a second copy of every setting.
 *
 * Leaves an unchanged file alone, so starting a second server (`npm run crowd` beside `npm start`)
 * does not reload the first one.
 *
 * @returns the file name, relative to ROOT
 */
export function writeDevConfig(): string {
  const base = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const overlay = `# GENERATED by scripts/lib/dev-server.ts from wrangler.toml for \`npm start\`: do not edit.\n${base}
# Local only: the origin stub (origin-stub/wrangler.toml, started beside the gateway) is the origin.
[[services]]
binding = "ORIGIN"
service = "origin-stub"
`;
  const path = join(ROOT, DEV_CONFIG);
  // Every running `wrangler dev` of this checkout watches the file and reloads when it changes (and
  // exits if it reads it half-written): write only a changed config, and atomically by rename.
  if (existsSync(path) && readFileSync(path, 'utf8') === overlay) return DEV_CONFIG;
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, overlay);
  renameSync(temp, path);
  return DEV_CONFIG;
}

/** `startDevServer`'s port is taken: `message` says by whom and what to do. */
export class PortInUseError extends Error {
  /** The port asked for. */
  readonly port: number;

  /** @param free a port that was free a moment ago, to suggest (`nextFreePort`) */
  constructor(port: number, holder: PortHolder, free: number) {
    super(`port ${port} on 127.0.0.1 is in use by ${holder.who}. ${holder.remedy}, or start on another port: PORT=${free} npm start`);
    this.port = port;
  }
}

/**
 * The first free port after `port` (up to 20 on), else any free one: what PortInUseError suggests
 * (checked: PORT+1 may be taken too).
 */
async function nextFreePort(port: number): Promise<number> {
  for (let p = port + 1; p <= Math.min(port + 20, 65_535); p++) if (await portIsFree(p)) return p;
  return freePort();
}

/** Whether a listener could bind 127.0.0.1:`port` right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Who holds a port (`who`) and what to do about it (`remedy`, a sentence without its full stop). */
export interface PortHolder {
  who: string;
  remedy: string;
}

/** A process's command line from /proc (Linux), or null (gone, or another OS). */
function commandLine(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

/** Fields of /proc/<pid>/stat (Linux): the parent pid and the process group, or null (gone, or another OS). */
function procStat(pid: number): { ppid: number; pgid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (name) ": state, ppid, pgrp, ... (the name may hold spaces and parentheses).
    const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), pgid: Number(pgid) };
  } catch {
    return null;
  }
}

/** A process's parent pid (from /proc), or null (gone, or another OS). */
export function parentPid(pid: number): number | null {
  return procStat(pid)?.ppid ?? null;
}

/**
 * Who listens on 127.0.0.1:`port`, in words for PortInUseError: an orphaned workerd of this
 * checkout (its wrangler gone: a `kill -9` of `npm start` before the process guard), a running
 * `wrangler dev` of this checkout, or another process, each with the pid to stop. The pid comes
 * from `pid-port` (`ss`/`netstat`); the command lines from /proc, where there is one.
 */
async function portHolder(port: number): Promise<PortHolder> {
  const pid = await portToPid({ port, host: '127.0.0.1' }).catch(() => undefined);
  if (!pid) return { who: 'another process (not visible to this user)', remedy: 'Stop it' };
  const cmd = commandLine(pid);
  const ours = cmd !== null && cmd[0] === join(ROOT, 'node_modules', '@cloudflare', 'workerd-linux-64', 'bin', 'workerd');
  if (!ours) return { who: `pid ${pid} (${cmd ? cmd.join(' ').slice(0, 120) : 'command unknown'})`, remedy: `Stop it (\`kill ${pid}\`)` };
  const parent = parentPid(pid);
  const group = procStat(pid)?.pgid;
  if (parent && commandLine(parent)?.some((a) => a.includes('wrangler')))
    return {
      who: `a wrangler dev of this checkout (wrangler pid ${parent}, workerd pid ${pid}: another npm start or test run, or one left running by a kill -9 before the process guard)`,
      remedy: `Stop it and its workerd processes with \`kill -- -${group}\``,
    };
  return {
    who: `an orphaned workerd of this checkout (pid ${pid}: its wrangler dev is gone)`,
    remedy: `Stop it with \`kill ${pid}\``,
  };
}

/** A TCP port on 127.0.0.1 that is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The project's Node 22 (the `node` devDependency), else the Node running this script. */
export function nodeBinary(): string {
  const local = join(ROOT, 'node_modules', '.bin', 'node');
  return existsSync(local) ? local : process.execPath;
}
