// An admitted buyer's request in a room, answered without building a Hono Context: after polls the
// busiest path of a sale (every page, asset and API call of every admitted buyer). It applies the
// same rules as serveRoom's admitted branch (src/routes/room.ts) through the same functions;
// anything else goes to the app, which answers it as before.
import { ENTRY_QUERY_PARAM } from '../../contracts/entry';
import { edgeAsk } from '../lib/edge-wait';
import { proxyToOrigin } from '../lib/proxy';
import { gatewaySettings } from '../lib/settings';
import { readAdmission, type Admission, type CredentialRequest } from '../middleware/credentials';
import { admittedAnswer } from './room';

/**
 * The origin's answer for an admitted visitor of `eventId` (the room table matched the request to
 * it), or null when this request is not one: no admission, one that does not verify or whose
 * session ended, an entry token in the URL, a setting that does not parse. The app then serves the
 * request in full (the queue, the sign-in page, the 500 naming the variable), so a null costs a
 * second admission read, never a different answer.
 *
 * @throws GatewayError ORIGIN_UNAVAILABLE (503) as proxyToOrigin; OVERLOADED when a revoke's leave
 *   call meets an overloaded WaitingRoom
 */
export async function serveAdmitted(
  request: Request,
  url: URL,
  env: Env,
  ctx: Pick<ExecutionContext, 'waitUntil'>,
  eventId: string,
): Promise<Response | null> {
  // The app's enterRoom handles `?wr_entry=`; leave every such request to it.
  if (url.searchParams.has(ENTRY_QUERY_PARAM)) return null;
  const r: CredentialRequest = {
    header: (name) => request.headers.get(name) ?? undefined,
    url: request.url,
    env,
    waitUntil: (p) => ctx.waitUntil(p),
  };
  let admission: Admission;
  try {
    gatewaySettings(env);
    admission = await readAdmission(r, eventId, Date.now());
  } catch {
    return null;
  }
  const gate = edgeAsk(env, ctx, eventId, admission.claims.visitorId);
  const origin = await proxyToOrigin(request, env, admission.token, { eventId, url, stripAuthorization: admission.ticketFromBearer, gate });
  return admittedAnswer(env, request.url, eventId, admission.claims.visitorId, origin, []);
}
