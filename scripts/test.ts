// `npm test`: installs Chromium if missing, checks generated types, type-checks, lints, finds dead code, checks the import
// rules and formatting, runs the workerd test suite, the origin SDK's Node tests and the browser
// tests, then prints one "N passed, N failed" line.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, nodeBinary } from './lib/dev-server.ts';

const CHROMIUM = '/usr/bin/chromium';
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const TYPES_FLAGS = ['--env-file', '.dev.vars.example', '--include-runtime', 'false', '--strict-vars', 'false', '--check'];

function step(title: string, cmd: string, args: string[], cwd = ROOT): void {
  console.log(`\n▶ ${title}`);
  const r = spawnSync(cmd, args, {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
  if (r.status !== 0) {
    console.error(`\n✖ ${title} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

/**
 * Like `step`, for a test run: its stderr (workerd's own lines, such as the stack traces of faults the
 * tests inject on purpose) is kept in `.build/<name>.stderr.log` and printed only when the run fails.
 */
function testStep(title: string, name: string, args: string[]): void {
  console.log(`\n▶ ${title}`);
  const r = spawnSync(nodeBinary(), args, {
    cwd: ROOT,
    stdio: ['inherit', 'inherit', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
  const file = join(ROOT, '.build', `${name}.stderr.log`);
  writeFileSync(file, r.stderr ?? '');
  if (r.status !== 0) {
    process.stderr.write(r.stderr ?? '');
    console.error(`\n✖ ${title} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
  const lines = (r.stderr ?? '').split('\n').filter(Boolean).length;
  if (lines > 0) console.log(`  (${lines} lines of runtime stderr, e.g. traces of injected faults, kept in ${file})`);
}

function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  console.log(`\n▶ installing Debian's chromium for the browser tests (${CHROMIUM} is missing)`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (args: string[]) =>
    execFileSync(sudo.length ? 'sudo' : args[0]!, sudo.length ? args : args.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'chromium']);
}

ensureChromium();
const wrangler = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
step('generated Env types are current (wrangler types --check)', nodeBinary(), [wrangler, 'types', ...TYPES_FLAGS]);
step(
  'origin stub Env types are current',
  nodeBinary(),
  [wrangler, 'types', ...TYPES_FLAGS, '--env-interface', 'OriginEnv'],
  join(ROOT, 'origin-stub'),
);
for (const project of [
  'tsconfig.json',
  'origin-stub/tsconfig.json',
  'test/tsconfig.json',
  'tsconfig.node.json',
  'origin-sdk/tsconfig.json',
  'origin-sdk/test/tsconfig.json',
  'example-origin/tsconfig.json',
]) {
  step(`type-check ${project}`, bin('tsc'), ['-p', project]);
}
step('import rules: arrows one way, no circles (dependency-cruiser, .dependency-cruiser.cjs)', nodeBinary(), [
  bin('depcruise'),
  '--config',
  '.dependency-cruiser.cjs',
  'src',
  'durable-objects',
  'contracts',
  'origin-stub',
  'origin-sdk',
  'example-origin',
]);
step('lint (oxlint, .oxlintrc.json)', bin('oxlint'), ['--deny-warnings']);
step('dead files, exports and dependencies (knip, knip.json)', bin('knip'), ['--no-progress']);
step('formatting (prettier --check)', bin('prettier'), ['--check', '.']);
step('bundle sizes (wrangler deploy --dry-run, minified)', nodeBinary(), [join(ROOT, 'scripts', 'bundle-size.ts')]);
step('README deploy commands print what they store (scripts/check-deploy-docs.ts)', nodeBinary(), [
  join(ROOT, 'scripts', 'check-deploy-docs.ts'),
]);

mkdirSync(join(ROOT, '.build'), { recursive: true });
const reports = { workerd: '.build/vitest-workerd.json', sdk: '.build/vitest-sdk.json', browser: '.build/vitest-browser.json' };
testStep('tests inside workerd (@cloudflare/vitest-plugin)', 'vitest-workerd', [
  bin('vitest'),
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${reports.workerd}`,
]);
testStep('origin SDK and example origin tests in Node', 'vitest-sdk', [
  bin('vitest'),
  'run',
  '-c',
  'origin-sdk/vitest.config.ts',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${reports.sdk}`,
]);
testStep('browser tests (Chromium via playwright-core)', 'vitest-browser', [
  bin('vitest'),
  'run',
  '-c',
  'vitest.e2e.config.ts',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${reports.browser}`,
]);

let passed = 0;
let failed = 0;
for (const file of Object.values(reports)) {
  const r = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { numPassedTests: number; numFailedTests: number };
  passed += r.numPassedTests;
  failed += r.numFailedTests;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
