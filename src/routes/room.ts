// A room at the URLs it covers: admitted visitors go to the origin, everyone else gets the waiting
// page (or JSON) right there; the origin's commands (revoke) are carried out on the way back.
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { keepPrivate } from '../lib/cache-control';
import { admissionCookie, clearedCookie, isSecure, ticketCookie } from '../lib/cookies';
import { callDurableObject } from '../lib/do-call';
import { ERROR_TABLE, GatewayError, type ErrorCode } from '../lib/errors';
import { ENTRY_QUERY_PARAM } from '../../contracts/entry';
import { SIGN_IN_REASONS, signInHref, signInPage, type SignInReason } from '../pages/sign-in-page';
import { logDecision } from '../../contracts/log';
import { REVOKE_COMMAND } from '../../contracts/names';
import { edgeAsk } from '../lib/edge-wait';
import { originCommands, proxyToOrigin, stripReturnedHeaders } from '../lib/proxy';
import { forgetSessions } from '../lib/session-cache';
import { pageSecurityHeaders } from '../lib/security-headers';
import { fromContext, readAdmission, type Admission } from '../middleware/credentials';
import { langCookie } from '../../contracts/i18n';
import { waitingPage } from '../pages/waiting-page';
import { checkTexts, pageStyle, signInWords, waitingTexts, waitingWords } from '../pages/page-texts';
import type { AppEnv } from '../types';
import { pageLang } from './queue';
import { answerTurn, edgeCursor, proofCursor, statusHeaders, ticketOrNull, wantsJson } from './turn';
import { PROOF_HEADER } from '../../contracts/names';
import { newChallenge } from '../lib/proof-of-work';
import { checkPage } from '../pages/check-page';
import { maintenancePage } from '../pages/maintenance-page';
import { MAINTENANCE_RETRY_AFTER_S } from '../../contracts/event-config';

/**
 * Answers a request a room covers (the room table matched it to `eventId`, and no bypass rule
 * let it through). An admitted visitor is proxied to the origin with the admission token; a
 * visitor without one takes their turn in the queue (a GET or HEAD; anything else is refused
 * with ADMISSION_REQUIRED), and is proxied at once if this very turn admits them. A browser new to
 * an event that asks for a proof of work gets the check step instead (src/pages/check-page.ts),
 * which joins by itself. Every answer is kept out of shared caches (`keepPrivate`).
 *
 * @throws GatewayError ADMISSION_REQUIRED (401) for a state-changing request without admission;
 *   ORIGIN_UNAVAILABLE (503); EVENT_NOT_FOUND (404) when the room's event has no WaitingRoom;
 *   OVERLOADED (503); RATE_LIMITED (429) on the join limit; PROOF_OF_WORK_* (4xx) for an app's
 *   missing or bad proof (src/lib/proof-of-work.ts)
 */
export async function serveRoom(c: Context<AppEnv>, eventId: string): Promise<Response> {
  if (c.req.method === 'GET' && !wantsJson(c) && new URL(c.req.url).searchParams.has(ENTRY_QUERY_PARAM)) return enterRoom(c, eventId);
  let admission: Admission | null = null;
  try {
    admission = await readAdmission(fromContext(c), eventId, Date.now());
  } catch (err) {
    // No, an expired or an ended admission: the visitor queues (or queues again) below.
    if (!(err instanceof GatewayError)) throw err;
  }
  if (admission) {
    const gate = edgeAsk(c.env, c.executionCtx, eventId, admission.claims.visitorId);
    const origin = await proxyToOrigin(c.req.raw, c.env, admission.token, {
      eventId,
      stripAuthorization: admission.ticketFromBearer,
      gate,
    });
    return admittedAnswer(c.env, c.req.url, eventId, admission.claims.visitorId, origin, []);
  }
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    throw new GatewayError('ADMISSION_REQUIRED', { detail: 'wait in the queue for your turn first' });
  }
  const ticket = await ticketOrNull(c, eventId);
  // A browser new to an event that asks for a proof of work solves it first (apps get the 401).
  const check = !ticket?.place && !wantsJson(c) && !c.req.header(PROOF_HEADER) ? await proofCursor(c, eventId, Date.now()) : null;
  if (check) return checkAnswer(c, eventId, check);
  const turn = await maintenanceOnRefusal(c, eventId, () => signInOnRefusal(c, eventId, async () => answerTurn(c, eventId, ticket)));
  if (turn instanceof Response) return turn;
  if (turn.admissionToken) {
    // Admitted on this very request: serve the sale page with the new cookies attached.
    const origin = await proxyToOrigin(c.req.raw, c.env, turn.admissionToken, {
      eventId,
      stripAuthorization: !getCookie(c, ticketCookie(eventId, isSecure(c.req.url))),
      gate: edgeAsk(c.env, c.executionCtx, eventId, turn.visitorId),
    });
    const cookies = c.res.headers.getSetCookie();
    // Taken over here: hono would otherwise replace the answer's Set-Cookie with these on return.
    c.res.headers.delete('set-cookie');
    return admittedAnswer(c.env, c.req.url, eventId, turn.visitorId, origin, cookies);
  }
  statusHeaders(c, turn);
  c.header('vary', 'Accept, Accept-Language, Cookie');
  if (wantsJson(c)) return c.json(turn.body);
  const { lang, chosen } = pageLang(c);
  const texts = await waitingTexts(c.var.pages.reader(c.env.ASSETS), lang, turn.page.texts, !!turn.page.template);
  for (const [k, v] of Object.entries(await pageSecurityHeaders([texts.script]))) c.header(k, v);
  // The switch's choice is remembered (this no-store page only; the cacheable draw page never sets it).
  if (chosen) c.header('set-cookie', langCookie(chosen, isSecure(c.req.url)), { append: true });
  return c.html(waitingPage(eventId, turn.body, lang, turn.page, texts), turn.pageStatus);
}

/** The check step (src/pages/check-page.ts) with a fresh challenge: no place, no cookie yet. */
async function checkAnswer(c: Context<AppEnv>, eventId: string, cursor: NonNullable<Awaited<ReturnType<typeof proofCursor>>>) {
  const challenge = await newChallenge(c.env, eventId, cursor.proofOfWork, Date.now());
  c.header('cache-control', 'no-store');
  c.header('vary', 'Accept, Accept-Language, Cookie');
  const { lang, chosen } = pageLang(c);
  const texts = await checkTexts(c.var.pages.reader(c.env.ASSETS), lang);
  for (const [k, v] of Object.entries(await pageSecurityHeaders([texts.script]))) c.header(k, v);
  if (chosen) c.header('set-cookie', langCookie(chosen, isSecure(c.req.url)), { append: true });
  return c.html(checkPage(eventId, cursor.eventName, challenge, lang, cursor.page, texts), cursor.pageStatus);
}

/**
 * The origin's answer to an admitted visitor, as the browser gets it: hop-by-hop fields and the
 * command header removed, the gateway's cookies added, and on `X-WR-Command: revoke` the
 * admission ended in the WaitingRoom (its active slot freed at once) and its cookie cleared.
 * Never storable by a shared cache.
 * @param requestUrl the URL the visitor asked for (the cookies' Secure flag and path follow it)
 */
export async function admittedAnswer(
  env: Env,
  requestUrl: string,
  eventId: string,
  visitorId: string,
  origin: Response,
  cookies: string[],
): Promise<Response> {
  const revoke = originCommands(origin).includes(REVOKE_COMMAND);
  // A copy: cookies and caching change below.
  const res = new Response(origin.body, origin);
  stripReturnedHeaders(res.headers);
  const secure = isSecure(requestUrl);
  const admissionName = admissionCookie(eventId, secure);
  for (const cookie of cookies) {
    // A revoked admission is not handed out in the first place.
    if (!(revoke && cookie.startsWith(`${admissionName}=`))) res.headers.append('set-cookie', cookie);
  }
  if (revoke) {
    await callDurableObject(() => env.WAITING_ROOM.getByName(eventId).leave(visitorId), {
      idempotent: true,
      name: 'waitingRoom.leave',
      eventId,
    });
    forgetSessions(eventId, visitorId, Date.now());
    res.headers.append('set-cookie', clearedCookie(admissionName, requestUrl));
    logDecision('revoked', { eventId });
  }
  keepPrivate(res.headers);
  return res;
}

/**
 * A browser back from signing in (`?wr_entry=<entry token>`): the account takes its turn (its place
 * is created or found and its ticket cookie set), then a 303 sends it to the same URL without the
 * token, so the token stays out of the history, bookmarks and `Referer`. A refused token gets the
 * sign-in page instead, with nothing changed.
 */
async function enterRoom(c: Context<AppEnv>, eventId: string): Promise<Response> {
  const answer = await signInOnRefusal(c, eventId, async () => answerTurn(c, eventId, await ticketOrNull(c, eventId)));
  if (answer instanceof Response) return answer;
  c.header('cache-control', 'no-store');
  c.header('referrer-policy', 'no-referrer');
  return c.redirect(sameSitePath(c.req.url), 303);
}

/**
 * The request's path and query without the entry token, as a same-site reference: leading
 * slashes and backslashes collapse to one `/`, because `//host/...` or `/\host/...` in a
 * `Location` (or a sign-in return) is another site's URL (RFC 3986 section 4.2 network-path
 * reference; browsers read `\` as `/`). `//evil.example/..%2Fevents/x/`
 * matched the room and was answered `303 Location: //evil.example/...`.
 */
function sameSitePath(requestUrl: string): string {
  const url = new URL(requestUrl);
  url.searchParams.delete(ENTRY_QUERY_PARAM);
  return '/' + url.pathname.replace(/^[/\\]+/, '') + url.search;
}

/**
 * Runs a turn; a refusal for want of a valid entry token becomes the sign-in page for a browser
 * (same status and code as the problem JSON apps get, which says `signInUrl`).
 */
async function signInOnRefusal<T>(c: Context<AppEnv>, eventId: string, turn: () => Promise<T>): Promise<T | Response> {
  try {
    return await turn();
  } catch (err) {
    if (!(err instanceof GatewayError) || !isSignInReason(err.code) || wantsJson(c)) throw err;
    const cursor = await edgeCursor(c, eventId, Date.now());
    const signInUrl = typeof err.extra?.signInUrl === 'string' ? err.extra.signInUrl : (cursor?.entry?.signInUrl ?? '/');
    const { lang } = pageLang(c);
    const page = signInPage({
      eventName: cursor?.eventName ?? eventId,
      reason: err.code,
      href: signInHref(signInUrl, sameSitePath(c.req.url)),
      lang,
      page: cursor?.page ?? {},
      t: await signInWords(c.var.pages.reader(c.env.ASSETS), lang),
      style: await pageStyle(c.var.pages.reader(c.env.ASSETS)),
    });
    for (const [k, v] of Object.entries(await pageSecurityHeaders([]))) c.header(k, v);
    // The URL may still carry the refused token: never send it on.
    c.header('referrer-policy', 'no-referrer');
    c.header('cache-control', 'no-store');
    c.header('vary', 'Accept, Accept-Language, Cookie');
    return c.html(page, ERROR_TABLE[err.code].status as 401 | 403 | 409);
  }
}

/**
 * Runs a turn; the `reject` method's refusal (ROOM_MAINTENANCE) becomes the maintenance page for a
 * browser, in the visitor's language with the event's template and own words, with the same status
 * and Retry-After as the problem JSON apps get.
 */
async function maintenanceOnRefusal<T>(c: Context<AppEnv>, eventId: string, turn: () => Promise<T>): Promise<T | Response> {
  try {
    return await turn();
  } catch (err) {
    if (!(err instanceof GatewayError) || err.code !== 'ROOM_MAINTENANCE' || wantsJson(c)) throw err;
    const retryAfterS = err.retryAfterS ?? MAINTENANCE_RETRY_AFTER_S;
    const eventName = typeof err.extra?.eventName === 'string' ? err.extra.eventName : '';
    const message = typeof err.extra?.message === 'string' ? err.extra.message : undefined;
    // The turn has just read the cursor: this is the isolate's copy, no object call.
    const page = (await edgeCursor(c, eventId, Date.now()))?.page ?? (message ? { message } : {});
    const read = c.var.pages.reader(c.env.ASSETS);
    const { lang } = pageLang(c);
    const [style, t] = await Promise.all([pageStyle(read, !!page.template), waitingWords(read, lang, page.texts)]);
    for (const [k, v] of Object.entries(await pageSecurityHeaders([]))) c.header(k, v);
    c.header('cache-control', 'no-store');
    c.header('retry-after', String(retryAfterS));
    c.header('vary', 'Accept, Accept-Language, Cookie');
    return c.html(maintenancePage({ eventName, page, retryAfterS, nowMs: Date.now(), lang, t, style }), 503);
  }
}

function isSignInReason(code: ErrorCode): code is SignInReason {
  return (SIGN_IN_REASONS as readonly string[]).includes(code);
}
