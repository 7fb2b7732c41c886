// How a crowd run's simulated visitors reach the gateway (scripts/lib/crowd-run.ts): one request
// through a visitor's own cookie jar, behind a shared cap on requests in flight (Gate) unless the
// visitor is admitted and browsing on its own connection; and the origin stub's capacity model set
// on its signed operator API.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CookieJar } from 'tough-cookie';
import { signOriginRequest } from '../../origin-sdk/src/index.ts';
import { ROOT } from './dev-server.ts';
import { parseDevVars } from './dev-secrets.ts';
import type { OriginModel } from './crowd-types.ts';

/**
 * Bounds the requests in flight, so the crowd does not open thousands of sockets at once. Joins
 * wait behind everyone else's requests: in a real crowd each browser has its own connection, so a
 * burst of arrivals does not delay the polls and purchases of visitors already in line; with one
 * FIFO queue a loaded run measured the crowd's own queue (no claim for 49 s while 700 joins queued).
 */
export class Gate {
  active = 0;
  private readonly waiting: { first: (() => void)[]; joins: (() => void)[] } = { first: [], joins: [] };
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  /** Runs `fn` once a slot is free; `join` requests get a slot only when no other request waits. */
  async run<T>(fn: () => Promise<T>, kind: 'join' | 'other' = 'other'): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => (kind === 'join' ? this.waiting.joins : this.waiting.first).push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      (this.waiting.first.shift() ?? this.waiting.joins.shift())?.();
    }
  }
}

/** A request's answer: its status, its JSON body ({} for HTML or nothing) and its Retry-After in s (0 if none). */
interface CrowdAnswer {
  status: number;
  body: Record<string, unknown>;
  retryAfterS: number;
}

/** Sends a crowd's requests; `visitorInFlight` counts the admitted visitors' own requests in flight. */
export interface CrowdClient {
  /**
   * One request with `jar`'s cookies (the answer's Set-Cookie lines go back into it), asking for
   * JSON. `kind` 'visitor' is an admitted visitor's own request (no shared cap, unless `coupled`);
   * 'join' waits behind every other request for a slot of the Gate.
   */
  request: (jar: CookieJar, path: string, init?: RequestInit, kind?: 'join' | 'other' | 'visitor') => Promise<CrowdAnswer>;
  visitorInFlight: () => number;
}

/**
 * A client for the gateway at `base`: answers of status 500 and above count in `counts.httpErrors`,
 * 429s in `counts.rateLimited`.
 * @param coupled admitted visitors' requests share the Gate too (CrowdOptions.coupled)
 */
export function crowdClient(base: string, gate: Gate, coupled: boolean, counts: Record<string, number>): CrowdClient {
  let visitorInFlight = 0;
  async function request(
    jar: CookieJar,
    path: string,
    init: RequestInit = {},
    kind: 'join' | 'other' | 'visitor' = 'other',
  ): Promise<CrowdAnswer> {
    const url = base + path;
    const send = async () => {
      const headers = new Headers(init.headers);
      const cookie = await jar.getCookieString(url);
      if (cookie) headers.set('cookie', cookie);
      headers.set('accept', 'application/json');
      if (init.body) headers.set('content-type', 'application/json');
      const res = await fetch(url, { ...init, headers, redirect: 'manual' });
      for (const line of res.headers.getSetCookie()) await jar.setCookie(line, url);
      const text = await res.text();
      let body: Record<string, unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        // HTML (the sale page)
      }
      if (res.status >= 500) counts.httpErrors!++;
      if (res.status === 429) counts.rateLimited!++;
      return { status: res.status, body, retryAfterS: Number(res.headers.get('retry-after')) || 0 };
    };
    if (kind === 'visitor' && !coupled) {
      visitorInFlight++;
      try {
        return await send();
      } finally {
        visitorInFlight--;
      }
    }
    return gate.run(send, kind === 'join' ? 'join' : 'other');
  }
  return { request, visitorInFlight: () => visitorInFlight };
}

/**
 * Sets the origin stub's capacity model on its signed operator API (`PUT /admin/events/{id}/load`,
 * signed with ORIGIN_HMAC_SECRET from .dev.vars; the gateway passes paths no room covers to the origin).
 * @returns the stub's answer, as a line for the log
 */
export async function setOriginModel(base: string, eventId: string, model: OriginModel): Promise<string> {
  const secret = existsSync(join(ROOT, '.dev.vars')) ? parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ORIGIN_HMAC_SECRET : '';
  if (!secret) return 'skipped (no ORIGIN_HMAC_SECRET in .dev.vars)';
  const path = `/admin/events/${eventId}/load`;
  const body = JSON.stringify(model);
  const headers = { 'content-type': 'application/json', ...(await signOriginRequest(secret, 'PUT', path, body, Date.now())) };
  const res = await fetch(base + path, { method: 'PUT', headers, body });
  return `${res.status} ${await res.text()}`;
}
