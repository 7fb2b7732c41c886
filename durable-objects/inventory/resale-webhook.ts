// Signed webhooks to the origin, one per offer, delivered from the Inventory's alarm: HMAC-SHA256
// under the origin API's own secret and scheme (contracts/hmac.ts), so an origin checks them with
// the SDK's `verifyOriginSignature`; retried with doubling backoff (resale-store.ts deliveryFailed).
// The same entries are in the resale feed for origins that poll.
import { signOriginRequest } from '../../contracts/hmac';
import type { ResaleStore } from './resale-store';

/** Longest one delivery may take before it counts as failed, ms. */
const WEBHOOK_TIMEOUT_MS = 5_000;
/** Webhooks sent per alarm run at most (the rest wait for the re-armed alarm). */
const WEBHOOKS_PER_RUN = 20;

/** Sends one signed webhook body to `path` on the origin; resolves true on a 2xx answer. */
export type WebhookSender = (path: string, body: string, eventId: number) => Promise<boolean>;

/**
 * Delivers the due webhooks: each outcome is written in its own transaction (delivered, or the next
 * attempt after the backoff). A send that throws counts as failed; at least once, so the origin
 * deduplicates by the body's `id` (also the `idempotency-key` header).
 */
export async function deliverWebhooks(p: {
  resale: ResaleStore;
  path: string;
  send: WebhookSender;
  clock: () => number;
  transactionSync: <T>(fn: () => T) => T;
}): Promise<void> {
  for (const e of p.resale.dueWebhooks(p.clock(), WEBHOOKS_PER_RUN)) {
    const body = JSON.stringify({ id: e.id, at: new Date(e.at).toISOString(), kind: e.kind, ref: e.ref, data: e.data });
    const ok = await p.send(p.path, body, e.id).catch(() => false);
    p.transactionSync(() => (ok ? p.resale.delivered(e.id) : p.resale.deliveryFailed(e.id, e.attempts, p.clock())));
  }
}

/**
 * The sender through the gateway's own connection to the origin (ORIGIN_URL, else the ORIGIN
 * binding), signed with ORIGIN_HMAC_SECRET over "POST\nPATH\nTIMESTAMP\nBODY". Without a secret or
 * an origin, every send fails (and is retried, then left to the feed).
 */
export function originSender(env: Pick<Env, 'ORIGIN_URL' | 'ORIGIN_HMAC_SECRET'> & { ORIGIN?: Fetcher }): WebhookSender {
  return async (path, body, eventId) => {
    const secret = env.ORIGIN_HMAC_SECRET ?? '';
    if (!secret || (!env.ORIGIN_URL && !env.ORIGIN)) return false;
    const signed = await signOriginRequest(secret, 'POST', path, body, Date.now());
    const request = new Request(new URL(path, env.ORIGIN_URL || 'https://origin.invalid'), {
      method: 'POST',
      body,
      headers: { ...signed, 'content-type': 'application/json', 'idempotency-key': `resale-${eventId}` },
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    const res = env.ORIGIN_URL ? await fetch(request) : await env.ORIGIN!.fetch(request);
    await res.body?.cancel();
    return res.ok;
  };
}
