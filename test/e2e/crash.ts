// Shared by the crash suites (kill9.e2e.test.ts, kill9-resale.e2e.test.ts): a queue visitor over
// real HTTP (join, status, hold, admission) and `kill -9` of a running `wrangler dev`.
import { expect } from 'vitest';
import type { DevServer } from '../../scripts/lib/dev-server.ts';

/** A visitor's turn as the status route answers it. */
export interface Turn {
  state: string;
  position: number | null;
  queueTicket?: string;
  admissionToken?: string;
}

/** An app visitor: its queue ticket (Authorization: Bearer) and, once admitted, its admission token. */
export interface Visitor {
  ticket: string;
  position: number;
  admission?: string;
}

/**
 * The response body as JSON.
 * @throws Error with the status and the start of the body when it is not JSON
 */
export async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${res.status} ${text.slice(0, 200)}`);
  }
}

/** Joins event `eventId`'s queue at gateway `url` (http://127.0.0.1:port). */
export async function joinQueue(url: string, eventId: string): Promise<Visitor> {
  const res = await fetch(`${url}/_wr/events/${eventId}/join`, { method: 'POST', headers: { accept: 'application/json' } });
  const t = await json<Turn>(res);
  expect(res.status, JSON.stringify(t)).toBeLessThan(300);
  return { ticket: t.queueTicket!, position: t.position ?? 0, ...(t.admissionToken ? { admission: t.admissionToken } : {}) };
}

/** Polls the visitor's status once, keeping the renewed ticket and the admission token. */
export async function poll(url: string, eventId: string, v: Visitor): Promise<Turn> {
  const res = await fetch(`${url}/_wr/events/${eventId}/status`, {
    headers: { accept: 'application/json', authorization: `Bearer ${v.ticket}` },
  });
  const t = await json<Turn>(res);
  expect(res.status, JSON.stringify(t)).toBe(200);
  if (t.queueTicket) v.ticket = t.queueTicket;
  if (t.admissionToken) v.admission = t.admissionToken;
  return t;
}

/** An admitted visitor's hold of `seatIds` with idempotency key `key` (the raw response). */
export function hold(url: string, eventId: string, v: Visitor, seatIds: string[], key: string): Promise<Response> {
  return fetch(`${url}/_wr/events/${eventId}/holds`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${v.ticket}`,
      'x-admission-token': v.admission!,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify({ seatIds }),
  });
}

/** Polls every waiting visitor until `count` are admitted (or `timeoutMs` passes); the admitted ones. */
export async function admitted(url: string, eventId: string, visitors: Visitor[], count: number, timeoutMs: number): Promise<Visitor[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const v of visitors) if (!v.admission) await poll(url, eventId, v);
    const done = visitors.filter((v) => v.admission);
    if (done.length >= count || Date.now() > deadline) return done;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `kill -9` of the server's whole process group (wrangler and workerd); resolves when it has exited. */
export function killHard(server: DevServer): Promise<void> {
  const exited = new Promise<void>((r) => server.process.once('exit', () => r()));
  process.kill(-server.process.pid!, 'SIGKILL');
  return exited;
}
