// `PROFILE_ADMITTED_ONLY=1 npm run bench:profile`'s step table of an admitted page request in a
// room: the request built up one stage at a time in the bench Worker, from the bare forward F to
// the whole gateway. Each stage is a loop of `n` requests one after another; bench/profile-admitted.ts
// reads the workerd processes' CPU around each loop, so a stage's cost is its CPU per request minus
// the stage before it (in-isolate clocks advance only at I/O and are too coarse for a few us).
import { originPullKey } from '../contracts/hmac';
import { ADMISSION_HEADER, ORIGIN_PULL_HEADER } from '../contracts/names';
import { edgeAsk } from '../src/lib/edge-wait';
import { VIA, proxyToOrigin } from '../src/lib/proxy';
import { RoomTableCache, directorySource } from '../src/lib/room-table';
import { RoomMatches } from '../src/lib/room-matches';
import { readAdmission, type CredentialRequest } from '../src/middleware/credentials';
import { admittedAnswer } from '../src/routes/room';
import { ADMITTED_STAGES } from './bench-routes';

/** What the stages need: the gateway's fetch and bindings, the origin, an admitted visitor's cookie. */
export interface AdmittedStepInput {
  gateway: (request: Request) => Promise<Response>;
  env: Env & { ORIGIN: Fetcher };
  ctx: ExecutionContext;
  eventId: string;
  /** The visitor's Cookie header, issued on http://127.0.0.1 (so the names are `__wr_...`). */
  cookie: string;
}

/**
 * Runs stage `stage` (an index of ADMITTED_STAGES, bench-routes.ts) `n` times, one request after another.
 * @throws Error when a stage's request is not admitted (the bench's cookie is stale)
 */
export async function runAdmittedStage(stage: number, n: number, input: AdmittedStepInput): Promise<void> {
  const { env, ctx, eventId, cookie } = input;
  const page = `http://127.0.0.1/events/${eventId}/tickets`;
  const drain = async (res: Response) => void (await res.arrayBuffer());
  const pull = await originPullKey(env.ORIGIN_HMAC_SECRET);
  // The forwarded request without proxyToOrigin's rules: the copy alone, then (with `token`) the
  // fields proxyToOrigin adds, so these two stages show what the origin's request costs by itself.
  const rebuilt = (request: Request, token: string | null) => {
    const headers = new Headers(request.headers);
    if (token !== null) {
      const url = new URL(request.url);
      headers.set('via', VIA);
      headers.set('x-forwarded-host', url.host);
      headers.set('x-forwarded-proto', url.protocol.slice(0, -1));
      headers.set(ORIGIN_PULL_HEADER, pull);
      headers.set(ADMISSION_HEADER, token);
    }
    return new Request(request.url, { method: request.method, headers, redirect: 'manual' });
  };
  const rooms = new RoomTableCache();
  const matches = new RoomMatches();
  for (let i = 0; i < n; i++) {
    const request = new Request(page, { headers: { cookie, accept: 'text/html', 'user-agent': 'bench' } });
    if (stage === ADMITTED_STAGES.length - 1) {
      const res = await input.gateway(request);
      if (res.status !== 200) throw new Error(`admitted request answered ${res.status}`);
      await drain(res);
      continue;
    }
    let claims = { visitorId: 'v' };
    let token = '';
    let url: URL | undefined;
    if (stage >= 1) {
      url = new URL(request.url);
      const now = Date.now();
      const table = rooms.fresh(now) ?? (await rooms.table(directorySource(env, ctx), now));
      if (matches.match(table, request.method, url.hostname, url.pathname).kind !== 'room') throw new Error('no room covers the page');
    }
    if (stage >= 2) {
      const r: CredentialRequest = {
        header: (name) => request.headers.get(name) ?? undefined,
        url: request.url,
        env,
        waitUntil: (p) => ctx.waitUntil(p),
      };
      ({ claims, token } = await readAdmission(r, eventId, Date.now()));
    }
    const gate = stage >= 6 ? { gate: edgeAsk(env, ctx, eventId, claims.visitorId) } : {};
    const origin =
      stage >= 5
        ? await proxyToOrigin(request, env, token, { eventId, url, ...gate })
        : await env.ORIGIN.fetch(stage >= 3 ? rebuilt(request, stage >= 4 ? token : null) : request);
    await drain(stage >= 7 ? await admittedAnswer(env, request.url, eventId, claims.visitorId, origin, []) : origin);
  }
}
