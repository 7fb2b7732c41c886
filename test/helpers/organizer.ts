// Organizer API calls in tests: with any credential, and named keys made through the API itself.
import { env, exports } from 'cloudflare:workers';
import type { OrganizerRole } from '../../contracts/organizer-access';
import { BASE } from './client';

/** An organizer API answer: status, headers and the parsed body (text for CSV). */
export interface OrganizerAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

/** Calls `/_wr/admin{path}` with `Authorization: Bearer <token>` (ADMIN_TOKEN by default) and any extra headers. */
export async function organizer(
  path: string,
  init: { method?: string; body?: unknown; token?: string | null; headers?: Record<string, string> } = {},
): Promise<OrganizerAnswer> {
  const token = init.token === undefined ? env.ADMIN_TOKEN : init.token;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  const res = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
    }),
  );
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // CSV or empty: the text is there.
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Creates a named key with ADMIN_TOKEN; returns its id and the key (shown this once). */
export async function newKey(role: OrganizerRole, label = `${role} key`): Promise<{ keyId: string; key: string }> {
  const res = await organizer('/keys', { method: 'POST', body: { label, role } });
  if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${res.text}`);
  return { keyId: res.body['keyId'] as string, key: res.body['key'] as string };
}
