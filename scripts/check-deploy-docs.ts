// `npm test` step: the README's Deploy commands do what they say. Each `... | npx wrangler secret
// put NAME` line is run up to the pipe (as a user would, through npm) and must print the secret
// alone: for ADMISSION_SIGNING_JWK one line holding a private P-256 JWK with a `kid` (npm's
// `> pkg@x script` banner in front of it was stored as the secret). Every `npm run X`
// the README names must be a script of package.json.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib/dev-server.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const problems: string[] = [];

const deploy = /^## Deploy\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
const blocks = [...deploy.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
if (blocks.length === 0) problems.push('README has no ```sh block under "## Deploy"');
let checked = 0;
for (const line of blocks.join('\n').split('\n')) {
  const pipe = /^(.+?)\s*\|\s*npx wrangler secret put (\w+)/.exec(line.trim());
  if (!pipe || !pipe[1]!.startsWith('npm ')) continue;
  const [, producer, name] = pipe;
  // npm from the user's PATH, the way they would type it (npm runs the script on the project's Node 22).
  const out = execSync(producer!, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: undefined } });
  checked++;
  if (name === 'ADMISSION_SIGNING_JWK') {
    const lines = out.split('\n').filter((l) => l !== '');
    let jwk: Record<string, unknown> | null = null;
    try {
      jwk = lines.length === 1 ? (JSON.parse(lines[0]!) as Record<string, unknown>) : null;
    } catch {
      jwk = null;
    }
    const ok = jwk && jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.d === 'string' && typeof jwk.kid === 'string';
    if (!ok) problems.push(`"${producer}" must print one private P-256 JWK with a kid and nothing else; it printed:\n${out}`);
  }
}
if (checked === 0) problems.push('no "npm ... | npx wrangler secret put" line found in the Deploy section');
for (const m of readme.matchAll(/npm run (?:-s |--silent )?([\w-]+(?::[\w-]+)*)/g)) {
  if (!(m[1]! in scripts)) problems.push(`README names "npm run ${m[1]}", which package.json does not have`);
}
if (problems.length > 0) {
  for (const p of problems) console.error(`✖ ${p}`);
  process.exit(1);
}
console.log(`README deploy commands: ${checked} secret pipeline(s) print the secret alone; every npm script named exists`);
