// CPU time of the workerd processes this bench started, from /proc (Linux): what a Workers customer
// pays for, and a figure that does not depend on the load generator sharing the cores.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (sysconf(_SC_CLK_TCK), 100 on Linux). */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's parent pid, command name and user + system CPU ticks, from /proc/<pid>/stat (proc(5)). */
function stat(pid: number): { ppid: number; comm: string; ticks: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces: the fields after it start at the last ')'.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const rest = text.slice(close + 2).split(' ');
    // rest[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
    return { ppid: Number(rest[1]), comm, ticks: Number(rest[11]) + Number(rest[12]) };
  } catch {
    return null;
  }
}

/**
 * The pids of every `workerd` process descending from this Node process (Miniflare starts one per
 * instance; more when a bench runs several). Empty where /proc does not exist.
 */
export function workerdPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const all = new Map<number, { ppid: number; comm: string }>();
  for (const e of entries) {
    const pid = Number(e);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (s) all.set(pid, s);
  }
  const mine = (pid: number): boolean => {
    for (let p = all.get(pid)?.ppid, hops = 0; p !== undefined && p > 1 && hops < 16; p = all.get(p)?.ppid, hops++)
      if (p === process.pid) return true;
    return false;
  };
  return [...all].filter(([pid, s]) => s.comm === 'workerd' && mine(pid)).map(([pid]) => pid);
}

/** User + system CPU time of `pids` so far, microseconds (processes that ended count 0). */
export function cpuUs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) ticks += stat(pid)?.ticks ?? 0;
  return (ticks * 1e6) / CLK_TCK;
}

/**
 * Starts a CPU meter over the workerd processes running now.
 * @returns a function that gives the CPU they used since, microseconds (NaN without /proc)
 */
export function cpuMeter(): () => number {
  const pids = workerdPids();
  if (pids.length === 0) return () => NaN;
  const start = cpuUs(pids);
  return () => cpuUs(pids) - start;
}

/**
 * Time on a CPU of every thread of `pids` so far, microseconds, from /proc/<pid>/task/<tid>/schedstat
 * (nanoseconds, sched-stats.rst): finer than the clock ticks of `cpuUs`, so short loops can be
 * told apart. NaN where the kernel does not keep it.
 */
export function threadCpuUs(pids: readonly number[]): number {
  let ns = 0;
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return ns / 1000;
}

/** As `cpuMeter`, by `threadCpuUs` (nanosecond counts rather than clock ticks). */
export function fineCpuMeter(): () => number {
  const pids = workerdPids();
  if (pids.length === 0) return () => NaN;
  const start = threadCpuUs(pids);
  return () => threadCpuUs(pids) - start;
}
