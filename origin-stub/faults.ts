// Demo and test switches of the stub, set only through its signed operator API: the fake payment
// provider's faults and a slower (or smaller) origin. Pure parsing and selection.
import type { Fault, ProviderCall } from './payment-provider';

/**
 * Fault injection of the fake provider (`PUT /admin/events/{id}/payment-faults`): `latencyMs` per
 * provider call; `webhooks`: `immediate` (delivered by a job right after the change),
 * `before_response` (delivered before the API answer returns), `manual` (kept in the outbox, never
 * delivered: only queries and reconciliation find out); `next`: faults for the next calls of an
 * operation, in order.
 */
export interface PaymentFaults {
  latencyMs: number;
  webhooks: 'immediate' | 'before_response' | 'manual';
  next: { op: ProviderCall['op']; fault: Exclude<Fault, 'none'> }[];
}

/** No faults: answers at once, webhooks delivered right after each change. */
export const DEFAULT_FAULTS: PaymentFaults = { latencyMs: 0, webhooks: 'immediate', next: [] };

const OPS: readonly string[] = ['authorize', 'capture', 'void', 'refund', 'query'];
const FAULTS: readonly string[] = ['timeout', 'lost_response', 'technical'];
const WEBHOOKS: readonly string[] = ['immediate', 'before_response', 'manual'];

/** What a refused switch body is told (400 INVALID_REQUEST). */
export const PAYMENT_FAULTS_HELP = 'latencyMs 0-30000, webhooks immediate|before_response|manual, next [{op, fault}]';

/** A payment-faults body, or null when any field is out of range (then nothing changes). */
export function parsePaymentFaults(body: unknown): PaymentFaults | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  if (b.latencyMs !== undefined && !(typeof b.latencyMs === 'number' && b.latencyMs >= 0 && b.latencyMs <= 30_000)) return null;
  if (b.webhooks !== undefined && !WEBHOOKS.includes(b.webhooks as string)) return null;
  const next = Array.isArray(b.next) ? (b.next as { op?: unknown; fault?: unknown }[]) : [];
  if (!next.every((f) => OPS.includes(f?.op as string) && FAULTS.includes(f?.fault as string))) return null;
  return {
    latencyMs: (b.latencyMs as number | undefined) ?? 0,
    webhooks: (b.webhooks as PaymentFaults['webhooks'] | undefined) ?? 'immediate',
    next: next.map((f) => ({ op: f.op as ProviderCall['op'], fault: f.fault as Exclude<Fault, 'none'> })),
  };
}

/** Takes (removes) the first queued fault for this call's operation; `none` when there is none. */
export function takeFault(faults: PaymentFaults, call: ProviderCall): Fault {
  const i = faults.next.findIndex((f) => f.op === call.op);
  if (i < 0) return 'none';
  return faults.next.splice(i, 1)[0]!.fault;
}

/** A slower or smaller origin (`PUT /admin/events/{id}/load`): base latency ms and the capacity knee (requests). */
export interface Slowdown {
  baseLatencyMs: number;
  capacityKnee: number;
}

/** What a refused load body is told (400 INVALID_REQUEST). */
export const SLOWDOWN_HELP = 'baseLatencyMs and capacityKnee: numbers 0-60000';

/** A load-switch body, or null when it is not one (then nothing changes). */
export function parseSlowdown(body: unknown): Slowdown | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 60_000;
  if (!ok(b.baseLatencyMs) || !ok(b.capacityKnee) || Object.keys(b).length !== 2) return null;
  return { baseLatencyMs: b.baseLatencyMs, capacityKnee: b.capacityKnee };
}
