// Requests to the gateway's own fetch handler from workerd tests: answers read as JSON, the
// organizer's headers, and origin API requests signed as an origin signs them.
import { env, exports } from 'cloudflare:workers';
import { signOriginRequest } from '../../contracts/hmac';

/** The origin the tests send their requests to; the gateway serves any host. */
export const BASE = 'https://gateway.test';

/** A gateway answer: `body` is the parsed JSON, or `{}` when the body is empty or not JSON (`text` has it). */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/** Sends `init` to `BASE + path` through the gateway (`exports.default.fetch`) and reads the whole answer. */
export async function call(path: string, init: RequestInit = {}): Promise<Answer> {
  return answerOf(await exports.default.fetch(new Request(BASE + path, init)));
}

/** Reads a gateway response as an `Answer`. */
export async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = {};
  try {
    if (text) body = JSON.parse(text);
  } catch {
    // HTML or plain text: `text` has it.
  }
  return { status: res.status, headers: res.headers, text, body: body as Record<string, unknown> };
}

/** The organizer API's headers: `Authorization: Bearer ADMIN_TOKEN` and a JSON body. */
export function adminHeaders(): Record<string, string> {
  return { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' };
}

/**
 * Sends an origin API request signed with ORIGIN_HMAC_SECRET (or `secret`) at `signedAtMs`, as an
 * origin's SDK signs it (X-WR-Timestamp and X-WR-Signature); GET requests carry no body.
 */
export async function signedCall(
  method: string,
  path: string,
  body: string,
  signedAtMs = Date.now(),
  secret: string = env.ORIGIN_HMAC_SECRET,
): Promise<Answer> {
  const headers = { 'content-type': 'application/json', ...(await signOriginRequest(secret, method, path, body, signedAtMs)) };
  return call(path, { method, headers, ...(method === 'GET' ? {} : { body }) });
}
