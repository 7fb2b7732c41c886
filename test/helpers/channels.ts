// Sales channels in tests: the organizer's channel and allocation calls, and a channel client that
// signs its requests with its own key, all through the gateway's real fetch handler.
import { exports } from 'cloudflare:workers';
import { signChannelRequest, signOriginRequest } from '../../contracts/hmac';
import { CHANNEL_KEY_HEADER } from '../../contracts/names';
import { BASE, adminHeaders } from './gateway';

/** A JSON answer of the gateway. */
export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

async function answer<T>(res: Response): Promise<Answer<T>> {
  return { status: res.status, body: (await res.json()) as T };
}

/** One organizer call (`Authorization: Bearer ADMIN_TOKEN`) with a JSON body. */
export async function organizer<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: adminHeaders() };
  if (body !== undefined) init.body = JSON.stringify(body);
  return answer<T>(await exports.default.fetch(new Request(`${BASE}/_wr/admin${path}`, init)));
}

/** Creates (or re-activates) a channel and returns a client holding the key it was shown. */
export async function createChannel(eventId: string, channelId: string, name = channelId): Promise<ChannelClient> {
  const res = await organizer<{ keyId: string; secret: string }>('PUT', `/events/${eventId}/channels/${channelId}`, { name });
  if (res.status !== 201) throw new Error(`channel not created: ${res.status} ${JSON.stringify(res.body)}`);
  return new ChannelClient(eventId, res.body.keyId, res.body.secret);
}

/** PUTs an allocation; `releaseInMs` from the gateway's clock. */
export function allocate(
  eventId: string,
  allocationId: string,
  body: { channelId: string; releaseAt: string } & ({ seatIds: string[] } | { tier: string; quantity: number }),
): Promise<Answer> {
  return organizer('PUT', `/events/${eventId}/allocations/${allocationId}`, body);
}

/** A sales channel: every request signed with its key (`X-WR-Channel-Key`, timestamp, HMAC signature). */
export class ChannelClient {
  constructor(
    readonly eventId: string,
    readonly keyId: string,
    readonly secret: string,
  ) {}

  /**
   * The headers and body of a signed request to `/_wr/channel/events/<event><path>` (the signature
   * covers the path without query): signed v2 (covering `headers['idempotency-key']`), or v1 with
   * `opts.version: 1` (the legacy scheme, no key covered).
   */
  async signed(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    opts: { version?: 1 | 2 } = {},
  ): Promise<{ url: URL; init: RequestInit }> {
    const url = new URL(`${BASE}/_wr/channel/events/${this.eventId}${path}`);
    const text = body === undefined ? '' : JSON.stringify(body);
    const signed =
      opts.version === 1
        ? await signOriginRequest(this.secret, method, url.pathname, text, Date.now())
        : await signChannelRequest(this.secret, method, url.pathname, text, Date.now(), headers['idempotency-key'] ?? '');
    const init: RequestInit = {
      method,
      headers: { 'content-type': 'application/json', [CHANNEL_KEY_HEADER]: this.keyId, ...signed, ...headers },
    };
    if (method !== 'GET') init.body = text;
    return { url, init };
  }

  /** A signed request (see `signed`), sent through the gateway's fetch handler. */
  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    opts: { version?: 1 | 2 } = {},
  ): Promise<Answer<T>> {
    const { url, init } = await this.signed(method, path, body, headers, opts);
    return answer<T>(await exports.default.fetch(new Request(url, init)));
  }

  /** Holds seats (or tier places) for one of the channel's customers. */
  hold(account: string, target: { seatIds: string[] } | { tier: string; quantity: number }, key: string = crypto.randomUUID()) {
    return this.request('POST', '/holds', { account, ...target }, { 'idempotency-key': key });
  }

  confirm(holdId: string, orderId: string, amountMinor: number) {
    return this.request('POST', `/holds/${holdId}/confirm`, { orderId, amountMinor });
  }

  release(holdId: string) {
    return this.request('POST', `/holds/${holdId}/release`, {});
  }
}
