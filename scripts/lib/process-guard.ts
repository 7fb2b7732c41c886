// Runs one command as the leader of its own process group and takes the whole group down (the
// command and everything it started, e.g. wrangler's workerd processes) as soon as the process that
// started this guard is gone, however it went: `kill -9` runs no exit handler, and a child in its own
// group gets no signal from its parent's terminal. The parent holds the other end of this guard's
// stdin (a pipe): the kernel closes it when the parent dies, and the guard reads end-of-file.
// Usage (scripts/lib/dev-server.ts): spawn(node, ['scripts/lib/process-guard.ts', cmd, ...args],
// { detached: true, stdio: ['pipe', ...] }).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** How long the group gets after SIGTERM before SIGKILL, ms (wrangler stops its workerd processes in about 1 s). */
export const GUARD_GRACE_MS = 3_000;

/**
 * Sends `signal` to this guard's process group. The guard is its leader (spawned with
 * `detached: true`), so its pid is the group id.
 */
function signalGroup(signal: NodeJS.Signals): void {
  try {
    process.kill(-process.pid, signal);
  } catch {
    // the group is already empty but for this process
  }
}

function main(argv: readonly string[]): void {
  const [command, ...args] = argv;
  if (!command) {
    console.error('usage: node scripts/lib/process-guard.ts <command> [args...]');
    process.exit(2);
  }
  // The command inherits stdout and stderr (the parent's pipes or terminal), not the lifeline.
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    signalGroup('SIGTERM');
    setTimeout(() => signalGroup('SIGKILL'), GUARD_GRACE_MS).unref();
  };
  // The group's SIGTERM reaches this guard too: it must outlive the command to send the SIGKILL.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
  // The lifeline: end-of-file (or an error) on stdin means the parent is gone.
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
  child.on('exit', (code, signal) => {
    // Stopping (the parent asked, or is gone): whatever is left of the group goes now, this guard
    // included. The command ended by itself: its leftovers (a workerd whose wrangler died) get
    // SIGTERM, and the parent gets the command's exit code.
    if (stopping) signalGroup('SIGKILL');
    signalGroup('SIGTERM');
    process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
  });
  child.on('error', (err) => {
    console.error(`process-guard: cannot start ${command}: ${err.message}`);
    process.exit(127);
  });
}

if (import.meta.main) main(process.argv.slice(2));
