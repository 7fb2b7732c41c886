// Seat map and seat holds for admitted visitors: the account is the admission token's subject.
import { setCookie } from 'hono/cookie';
import { Hono, type Context } from 'hono';
import { cookieMaxAgeS, numericDate } from '../../contracts/queue/lifetimes';
import { admissionCookie, cookieOptions, isSecure } from '../lib/cookies';
import { signAdmission, tokenSettings } from '../lib/token';
import * as z from 'zod/mini';
import '../../contracts/zod';
import type { HoldAnswer, HoldChangeAnswer, HoldExtendAnswer, SeatMapAnswer } from '../../contracts/inventory-answers';
import { requireAdmission } from '../middleware/credentials';
import { callDurableObject } from '../lib/do-call';
import { holdAnswerOfEvent, inventoryFor, inventoryNameFor, refuseUnknownSection } from '../lib/inventory-router';
import { coalescedHold } from '../lib/hold-batch';
import { eventSeatMap } from '../lib/sectioned-inventory';
import { sectionObjectName } from '../../contracts/inventory-names';
import { SECTION_PATTERN } from '../../contracts/names';
import { GatewayError } from '../lib/errors';
import { extensionBody, holdBody, holdChangeResult, holdExtendResult, holdResult } from '../lib/object-answers';
import { recordHold } from '../lib/hold-signals';
import { SNAPSHOT_CACHE_MS, cachedSeatMap } from '../lib/seat-map-cache';
import { logDecision } from '../../contracts/log';
import { recordDecision } from '../lib/decision-tally';
import { readJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';

/** Idempotency keys: 1-128 visible ASCII characters (draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

const seatHold = z.strictObject({ seatIds: z.array(z.string().check(z.maxLength(24))).check(z.maxLength(6, 'a hold takes 1 to 6 seats')) });
const tierHold = z.strictObject({ tier: z.string().check(z.maxLength(32)), quantity: z.number() });
/** Numbered seats or a tier quantity; the body's own keys pick which, so an error names the field (also the channel API's). */
export const holdRequest = z.pipe(
  z.unknown(),
  z.transform((body, ctx) => {
    const tier = typeof body === 'object' && body !== null && 'tier' in body;
    const parsed = (tier ? tierHold : seatHold).safeParse(body);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: body });
    return z.NEVER;
  }),
);
const SINCE = /^\d{1,15}$/;

/** `/_wr/events/:eventId/seats` and `/_wr/events/:eventId/holds...`. */
export const holdsApi = new Hono<AppEnv>();

holdsApi.use('/:eventId/seats', requireAdmission());
holdsApi.use('/:eventId/holds', requireAdmission());
holdsApi.use('/:eventId/holds/*', requireAdmission());

holdsApi.get('/:eventId/seats', async (c) => {
  const eventId = eventIdParam(c);
  const rawSince = c.req.query('since');
  if (rawSince !== undefined && !SINCE.test(rawSince))
    throw new GatewayError('INVALID_REQUEST', { detail: 'since must be a map version (a whole number)' });
  const since = rawSince === undefined ? undefined : Number(rawSince);
  const section = c.req.query('section');
  if (section !== undefined && !SECTION_PATTERN.test(section))
    throw new GatewayError('INVALID_REQUEST', { detail: 'section must be a section name (upper-case letters and digits, 1-8)' });
  if (section !== undefined) await refuseUnknownSection(c.env, eventId, { kind: 'section', section }, Date.now());
  const read = (part: string | null, normalized: number | undefined) =>
    callDurableObject<SeatMapAnswer>(
      () => inventoryFor(c.env, eventId, part === null ? { kind: 'event' } : { kind: 'section', section: part }).seatMap(normalized),
      { idempotent: true, name: 'inventory.seatMap', eventId },
    );
  // One section's map (snapshot or deltas), or the event's: merged across its sections, if any.
  const body = await cachedSeatMap(
    section === undefined ? eventId : sectionObjectName(eventId, section),
    since,
    (normalized) => (section === undefined ? eventSeatMap(read, normalized) : read(section, normalized)),
    Date.now(),
    (p) => c.executionCtx.waitUntil(p),
  );
  if (body === null) throw new GatewayError('EVENT_NOT_FOUND');
  c.header('cache-control', `private, max-age=${SNAPSHOT_CACHE_MS / 1000}`);
  c.header('content-type', 'application/json');
  return c.body(body);
});

/**
 * The request's Idempotency-Key header.
 * @throws GatewayError IDEMPOTENCY_KEY_REQUIRED (400) without one; INVALID_REQUEST (400) for a malformed one
 */
function idempotencyKeyOf(c: Context<AppEnv>): string {
  const key = c.req.header('idempotency-key');
  if (!key) throw new GatewayError('IDEMPOTENCY_KEY_REQUIRED');
  if (!IDEMPOTENCY_KEY.test(key))
    throw new GatewayError('INVALID_REQUEST', { detail: 'Idempotency-Key must be 1-128 visible ASCII characters' });
  return key;
}

holdsApi.post('/:eventId/holds', async (c) => {
  const eventId = eventIdParam(c);
  const key = idempotencyKeyOf(c);
  const request = await readJsonBody(c.req.raw, holdRequest);
  const route =
    'tier' in request ? ({ kind: 'tier', tier: request.tier } as const) : ({ kind: 'seats', seatIds: request.seatIds } as const);
  await refuseUnknownSection(c.env, eventId, route, Date.now());
  const objectName = inventoryNameFor(eventId, route);
  const started = Date.now();
  // Coalesced with this isolate's other holds to the same object (hold-batch.ts). Idempotent by
  // its key: a retry after a transient failure (of this hold's batch) returns the first result.
  const item = { account: c.var.admission.visitorId, request, idempotencyKey: key };
  const answer = await callDurableObject<HoldAnswer>(() => coalescedHold(c.env, objectName, item, (p) => c.executionCtx.waitUntil(p)), {
    idempotent: true,
    name: 'inventory.hold',
    eventId,
  });
  const ms = Date.now() - started;
  // Feed the release controller: hold latency and conflicts, batched per isolate.
  const signals = recordHold(eventId, c.var.admission.visitorId, ms, answer.kind === 'unavailable', Date.now());
  if (signals)
    c.executionCtx.waitUntil(
      callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).recordHoldSignals(signals), {
        idempotent: false,
        name: 'waitingRoom.recordHoldSignals',
        eventId,
      }),
    );
  // Counted per isolate and written as a summary line per event every few seconds: one line per
  // hold cost a tenth of the hold path (docs/explanation/scaling.md). The Inventory keeps every hold.
  let result: ReturnType<typeof holdResult>;
  try {
    result = holdResult(await holdAnswerOfEvent(c.env, eventId, request, answer), eventId);
  } catch (err) {
    if (err instanceof GatewayError) recordDecision(eventId, 'hold.refused', { code: err.code, ms });
    throw err;
  }
  const { hold, replayed, paymentGraceMs, extension } = result;
  recordDecision(eventId, replayed ? 'hold.replayed' : 'hold.granted', { ms });
  if (replayed) c.header('idempotent-replayed', 'true');
  c.header('cache-control', 'no-store');
  const admissionToken = hold.status === 'HELD' ? await coverHold(c, eventId, hold.expiresAtMs, paymentGraceMs) : null;
  return c.json(
    { ...holdBody(hold), ...(extension ? { extension: extensionBody(extension) } : {}), ...(admissionToken ? { admissionToken } : {}) },
    201,
  );
});

/**
 * Keeps the visitor's admission alive until their hold's deadline (an admission that
 * ended while its visitor held seats sent them to the back of the queue mid-checkout, the seats
 * locked for nobody). Only when the hold, or a payment started at its last moment (its deadline
 * plus `paymentGraceMs`: a payment still processing at the admission's end sent the
 * buyer to the queue), can outlast the admission: the WaitingRoom moves the session's end out
 * (admission-cover.ts), and a new admission token carrying it is set as the cookie and returned
 * (`admissionToken`, for apps). If the room cannot be asked, the admission keeps its end.
 * @returns the new admission token, or null when none was needed or given
 */
async function coverHold(c: Context<AppEnv>, eventId: string, holdEndsAtMs: number, paymentGraceMs: number): Promise<string | null> {
  const { visitorId, sessionId, expiresAtMs } = c.var.admission;
  if (holdEndsAtMs + paymentGraceMs <= expiresAtMs || !sessionId) return null;
  const end = await callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).extendAdmission(visitorId, sessionId, holdEndsAtMs), {
    idempotent: true,
    name: 'waitingRoom.extendAdmission',
    eventId,
  }).catch(() => null);
  if (end === null || end <= expiresAtMs) return null;
  const now = Date.now();
  const token = await signAdmission(tokenSettings(c.env), { eventId, visitorId, expiresAtMs: end, sessionId }, now);
  setCookie(c, admissionCookie(eventId, isSecure(c.req.url)), token, cookieOptions(c.req.url, cookieMaxAgeS(now, numericDate(end))));
  return token;
}

holdsApi.get('/:eventId/holds/:holdId', async (c) => {
  const eventId = eventIdParam(c);
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId: c.req.param('holdId') }, Date.now());
  const answer = await callDurableObject<HoldChangeAnswer>(
    () =>
      inventoryFor(c.env, eventId, { kind: 'hold', holdId: c.req.param('holdId') }).getHold(
        c.req.param('holdId'),
        c.var.admission.visitorId,
      ),
    { idempotent: true, name: 'inventory.getHold', eventId },
  );
  c.header('cache-control', 'no-store');
  return c.json(holdBody(holdChangeResult(answer)));
});

holdsApi.delete('/:eventId/holds/:holdId', async (c) => {
  const eventId = eventIdParam(c);
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId: c.req.param('holdId') }, Date.now());
  // Releasing twice is a no-op, so a retry is safe.
  const answer = await callDurableObject<HoldChangeAnswer>(
    () =>
      inventoryFor(c.env, eventId, { kind: 'hold', holdId: c.req.param('holdId') }).release(
        c.req.param('holdId'),
        c.var.admission.visitorId,
        false,
      ),
    { idempotent: true, name: 'inventory.release', eventId },
  );
  logDecision(answer.kind === 'ok' ? 'hold.release' : 'hold.release_refused', {
    eventId,
    actor: 'visitor',
    code: answer.kind === 'refused' ? answer.code : answer.kind === 'not_found' ? 'HOLD_NOT_FOUND' : null,
  });
  // Someone else's hold: as unknown as on GET, with none of its details.
  if (answer.kind === 'refused' && answer.code === 'NOT_HOLD_OWNER') throw new GatewayError('HOLD_NOT_FOUND');
  return c.json(holdBody(holdChangeResult(answer)));
});

holdsApi.post('/:eventId/holds/:holdId/extend', async (c) => {
  const eventId = eventIdParam(c);
  const holdId = c.req.param('holdId');
  const key = idempotencyKeyOf(c);
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId }, Date.now());
  // Idempotent by its key: a retry after a transient failure replays the first extension.
  const answer = await callDurableObject<HoldExtendAnswer>(
    () => inventoryFor(c.env, eventId, { kind: 'hold', holdId }).extendHold(holdId, c.var.admission.visitorId, key, false),
    { idempotent: true, name: 'inventory.extendHold', eventId },
  );
  logDecision(answer.kind === 'extended' ? 'hold.extend' : 'hold.extend_refused', {
    eventId,
    actor: 'visitor',
    code: answer.kind === 'refused' ? answer.code : answer.kind === 'not_found' ? 'HOLD_NOT_FOUND' : null,
  });
  // Someone else's hold: as unknown as on GET, with none of its details.
  if (answer.kind === 'refused' && answer.code === 'NOT_HOLD_OWNER') throw new GatewayError('HOLD_NOT_FOUND');
  const { hold, extension, replayed, paymentGraceMs } = holdExtendResult(answer);
  if (replayed) c.header('idempotent-replayed', 'true');
  c.header('cache-control', 'no-store');
  // The admission follows the new deadline, as for a new hold.
  const admissionToken = hold.status === 'HELD' ? await coverHold(c, eventId, hold.expiresAtMs, paymentGraceMs) : null;
  return c.json({ ...holdBody(hold), extension: extensionBody(extension), ...(admissionToken ? { admissionToken } : {}) });
});
