// `npm run keygen`: prints a fresh ES256 private JWK for `wrangler secret put ADMISSION_SIGNING_JWK`.
import { generateDevSecrets } from './lib/dev-secrets.ts';

const { ADMISSION_SIGNING_JWK } = generateDevSecrets();
const jwk = JSON.parse(ADMISSION_SIGNING_JWK) as Record<string, string>;
jwk.kid = `k-${new Date().toISOString().slice(0, 10)}-${jwk.kid!.slice(4)}`;
process.stdout.write(JSON.stringify(jwk) + '\n');
