// The built package in a fresh Node project, run by the machine's Node 20 (not the repo's Node 22):
// import by package name, verify a gateway-signed token against a JWKS over HTTP, post a signed report.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyOriginSignature } from '../src/index.ts';
import { admissionTokenFor, gatewayKey, localServer } from './fixtures.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** The machine's Node (20 on this machine); the SDK promises Node >= 20. */
const SYSTEM_NODE = '/usr/bin/node';
let dir: string;

beforeAll(() => {
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'origin-sdk/tsconfig.build.json'], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'sdk-fresh-'));
  const pkg = join(dir, 'node_modules', '@waiting-room', 'origin-sdk');
  mkdirSync(pkg, { recursive: true });
  cpSync(join(ROOT, 'origin-sdk', 'package.json'), join(pkg, 'package.json'));
  cpSync(join(ROOT, 'origin-sdk', 'dist'), join(pkg, 'dist'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', 'jose'), join(dir, 'node_modules', 'jose'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fresh', type: 'module', private: true }));
  writeFileSync(
    join(dir, 'main.js'),
    `import { verifyAdmission, HealthReporter, AdmissionError } from '@waiting-room/origin-sdk';
import { nodeHealth } from '@waiting-room/origin-sdk/node';
const { GATEWAY, TOKEN } = process.env;
const a = await verifyAdmission({ headers: { 'x-admission-token': TOKEN } }, { eventId: 'demo', gatewayUrl: GATEWAY });
const expired = await verifyAdmission('a.b.c', { eventId: 'demo', gatewayUrl: GATEWAY }).catch((e) => e instanceof AdmissionError && e.code);
const r = new HealthReporter({ gatewayUrl: GATEWAY, eventId: 'demo', secret: 'fresh-secret' });
r.record(12, true);
r.seen(a.visitorId);
const outcome = await r.report();
console.log(JSON.stringify({ node: process.version, visitorId: a.visitorId, bad: expired, outcome: outcome.kind, middleware: typeof nodeHealth(r) }));
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SDK from a fresh Node project', () => {
  it.skipIf(!spawnSync(SYSTEM_NODE, ['--version']).stdout?.toString().startsWith('v2'))(
    'imports by package name on the system Node, verifies a token against the JWKS and posts a signed health report',
    async () => {
      const key = await gatewayKey();
      const server = await localServer(async (req, body, res) => {
        if (req.url === '/.well-known/jwks.json')
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk] }));
        const ok = await verifyOriginSignature(
          'fresh-secret',
          { method: req.method!, path: req.url!, body },
          req.headers['x-wr-timestamp'] as string,
          req.headers['x-wr-signature'] as string,
          Date.now(),
        );
        res.writeHead(ok ? 204 : 401).end();
      });
      try {
        const token = await admissionTokenFor(key, { nowMs: Date.now() });
        // Asynchronously: the JWKS and health server above runs in this process.
        const run = await promisify(execFile)(SYSTEM_NODE, ['main.js'], {
          cwd: dir,
          env: { ...process.env, GATEWAY: server.url, TOKEN: token },
        });
        expect(run.stderr).toBe('');
        const out = JSON.parse(run.stdout) as Record<string, string>;
        expect(out).toMatchObject({ visitorId: 'visitor-1', bad: 'ADMISSION_INVALID', outcome: 'accepted', middleware: 'function' });
        expect(out.node).toMatch(/^v(2\d|[3-9]\d)\./);
        expect(JSON.parse(server.requests.at(-1)!.body)).toMatchObject({ p99LatencyMs: 12, activeBuyers: 1 });
      } finally {
        await server.close();
      }
    },
  );
});
