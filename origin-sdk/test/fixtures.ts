// Test fixtures of the SDK: a gateway-like key pair and tokens signed exactly as src/lib/token.ts signs them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

/** A signing key with its public JWK (kid set). */
export async function gatewayKey(kid = `k-${Math.random().toString(36).slice(2, 8)}`) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey, jwk };
}

/** Claims and header of an admission token; override any of them to forge one. */
export interface TokenParts {
  nowMs: number;
  eventId?: string;
  typ?: string;
  iss?: string;
  ttlS?: number;
  iatS?: number;
  claims?: JWTPayload;
  omit?: string[];
}

/** Signs an admission token as the gateway does (ES256, kid, typ, iss, aud, sub, jti, iat, exp, sid). */
export async function admissionTokenFor(key: Awaited<ReturnType<typeof gatewayKey>>, p: TokenParts): Promise<string> {
  const nowS = Math.floor(p.nowMs / 1000);
  const payload: JWTPayload = {
    iss: p.iss ?? 'waiting-room-gateway',
    aud: p.eventId ?? 'demo',
    sub: 'visitor-1',
    jti: crypto.randomUUID(),
    iat: p.iatS ?? nowS,
    exp: nowS + (p.ttlS ?? 600),
    sid: String(p.nowMs),
    ...p.claims,
  };
  for (const k of p.omit ?? []) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: p.typ ?? 'wr-admission+jwt' }).sign(key.privateKey);
}

/** A local HTTP server on a free port; `handler` answers, `requests` counts what came in. */
export async function localServer(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
