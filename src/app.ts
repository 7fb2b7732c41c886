// The gateway's Hono app: routes each request by the room table (a room, or straight to the origin),
// mounts the gateway's own areas under /_wr/, and renders every error as problem details.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ERROR_TABLE, GatewayError, problemResponse } from './lib/errors';
import { logDecision } from '../contracts/log';
import { gatewaySettings } from './lib/settings';
import { publicJwks, tokenSettings } from './lib/token';
import { sameOrigin } from './middleware/same-origin';
import { knownEvent } from './middleware/known-event';
import { CONSOLE_PATH, DASHBOARD_PATH, OPENAPI_ASSET_PATH, OPENAPI_PATH, PageAssets, SCRIPT_PATHS } from './lib/page-assets';
import { pageSecurityHeaders } from './lib/security-headers';
import { problemPage } from './pages/problem-page';
import { adminApi } from './routes/admin';
import { challengeApi } from './routes/challenge';
import { holdsApi } from './routes/holds';
import { originApi } from './routes/origin-api';
import { waitlistApi } from './routes/resale';
import { channelApi } from './routes/channels';
import { queueApi } from './routes/queue';
import { serveRoom } from './routes/room';
import { serveAdmitted } from './routes/admitted';
import { keepPrivate } from './lib/cache-control';
import { passThrough } from './lib/proxy';
import { MAX_PATH_LENGTH, normalizePath } from '../contracts/room-patterns';
import { RoomMatches } from './lib/room-matches';
import { RoomTableCache, directorySource } from './lib/room-table';
import { KeyCache } from './lib/organizer-keys';
import type { AppEnv } from './types';
import { prefersHtml } from './lib/negotiate';

/** Builds the gateway app. */
export function createApp() {
  const app = new Hono<AppEnv>();

  // This isolate's copy of the room table (one per app, so tests get their own).
  const rooms = new RoomTableCache();
  // Its memory of matches against that table (most requests of a sale are to a few paths).
  const matches = new RoomMatches();
  // This isolate's copy of the page assets (words, scripts, the dashboard: src/lib/page-assets.ts).
  const pages = new PageAssets();
  // This isolate's memory of confirmed organizer keys (src/lib/organizer-keys.ts, KEY_CACHE_MS).
  const organizerKeys = new KeyCache();

  // Every variable is parsed once per env object (once per isolate): a missing or malformed one
  // fails each request with a 500 whose log line names the variable, instead of a silent default.
  app.use('*', async function settings(c, next) {
    gatewaySettings(c.env);
    await next();
  });

  // DESIGN.md section 3 step 0: every request not for the gateway itself is routed by the room
  // table. No room covers it (or a bypass rule lets it through): to the origin untouched, with no
  // object call and no cookie. A room covers it: the room answers at that very URL.
  app.use('*', async function roomRouting(c, next) {
    c.set('rooms', rooms);
    c.set('pages', pages);
    c.set('organizerKeys', organizerKeys);
    const url = new URL(c.req.url);
    if (isGatewayPath(url.pathname)) return next();
    const now = Date.now();
    const table = rooms.fresh(now) ?? (await rooms.table(directorySource(c.env, c.executionCtx), now));
    const match = matches.match(table, c.req.method, url.hostname, url.pathname);
    if (match.kind !== 'room') return passThrough(c.req.raw, url, c.env, match.kind === 'bypass');
    return serveRoom(c, match.room.eventId);
  });

  // Every gateway answer that sets a cookie, or says nothing about caching, is no-store: they
  // depend on the visitor's or the organizer's credentials. Public ones (JWKS,
  // the draw record) say so themselves.
  app.use('/_wr/*', async function gatewayCaching(c, next) {
    await next();
    if (c.res.headers.has('set-cookie') || !c.res.headers.has('cache-control')) keepPrivate(c.res.headers);
  });

  app.get('/.well-known/jwks.json', async (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json(await publicJwks(tokenSettings(c.env)));
  });
  // The API's description (src/openapi/document.ts), public like the JWKS.
  app.get(OPENAPI_PATH, async (c) => {
    c.header('cache-control', 'public, max-age=300');
    c.header('content-type', 'application/json');
    return c.body(await pages.reader(c.env.ASSETS).text(OPENAPI_ASSET_PATH));
  });
  // Visitor endpoints authenticate by cookie: refuse cross-site state changes (CSRF).
  app.use('/_wr/events/*', sameOrigin());
  // Made-up event ids end here, before any object is asked.
  app.use('/_wr/events/:eventId/*', knownEvent());
  // Rate limits sit where a request costs something: every new place in line counts against the
  // client IP's join limit (src/routes/turn.ts turnPorts), holds against the account inside the
  // Inventory. Status polls are answered at the edge without an object call: not limited.
  app.route('/_wr/events', queueApi);
  app.route('/_wr/events', holdsApi);
  app.route('/_wr/events', challengeApi);
  app.route('/_wr/events', waitlistApi);
  // The dashboard shell holds no data; its API calls carry an organizer key (or Access's assertion).
  app.get('/_wr/admin', (c) => c.redirect('/_wr/admin/', 301));
  app.get('/_wr/admin/', async (c) => {
    c.header('cache-control', 'no-store');
    // This page holds the organizer's key: only its own scripts may run.
    const read = pages.reader(c.env.ASSETS);
    const [html, ...scripts] = await Promise.all([
      read.text(DASHBOARD_PATH),
      read.text(SCRIPT_PATHS.dashboard),
      read.text(SCRIPT_PATHS.dashboardAccess),
    ]);
    for (const [k, v] of Object.entries(await pageSecurityHeaders(scripts))) c.header(k, v);
    return c.html(html);
  });
  // The console shell (events, scheduled changes, history) holds no data either.
  app.get('/_wr/admin/console', async (c) => {
    c.header('cache-control', 'no-store');
    const read = pages.reader(c.env.ASSETS);
    const [html, script] = await Promise.all([read.text(CONSOLE_PATH), read.text(SCRIPT_PATHS.console)]);
    for (const [k, v] of Object.entries(await pageSecurityHeaders([script]))) c.header(k, v);
    return c.html(html);
  });
  app.route('/_wr/admin', adminApi);
  app.route('/_wr/origin', originApi);
  // Sales channels (box office, partners): signed with each channel's own key, no queue.
  app.route('/_wr/channel', channelApi);

  // A gateway path with routes for other methods: 405 with Allow (RFC 9110 section 15.5.6); a path
  // with none: 404. hono's router answers which routes match; middleware (`use`) is method ALL.
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) =>
      app.router.match(m === 'HEAD' ? 'GET' : m, path)[0].some(([[, route]]) => route.method !== 'ALL'),
    );
    if (methods.length === 0) return problemResponse(new GatewayError('NOT_FOUND', { detail: `no route for ${c.req.method} ${path}` }));
    const res = problemResponse(new GatewayError('METHOD_NOT_ALLOWED', { detail: `${path} takes ${methods.join(', ')}` }));
    res.headers.set('allow', methods.join(', '));
    return res;
  });
  app.onError((err, c) => renderError(err, c.req.method, c.req.header('accept') ?? '', c.req.routePath));

  // Step 0's fast path, before Hono: a GET or HEAD no room covers goes to the origin without a
  // Context, a router or a middleware chain, so pass-through costs about a no-op route; so does an
  // admitted buyer's GET or HEAD in a room. Anything else (a visitor without a valid admission, a
  // gateway path, other methods) is the app's.
  const dispatch = app.fetch;
  app.fetch = async (...args: Parameters<typeof dispatch>) => {
    const [request, bindings, ctx] = args;
    const env = bindings as Env | undefined;
    const url = new URL(request.url);
    // Refused before any matching, whatever the method or route: routing cost stays bounded.
    if (url.pathname.length > MAX_PATH_LENGTH) {
      const detail = `the path is ${url.pathname.length} characters; at most ${MAX_PATH_LENGTH}`;
      return problemResponse(new GatewayError('URI_TOO_LONG', { detail }));
    }
    if (env && ctx && (request.method === 'GET' || request.method === 'HEAD')) {
      if (!isGatewayPath(url.pathname)) {
        try {
          // Only the origin's settings matter here (passThrough reads them): the site stays up
          // even when a token secret is missing or malformed.
          const now = Date.now();
          const table = rooms.fresh(now) ?? (await rooms.table(directorySource(env, ctx), now));
          const match = matches.match(table, request.method, url.hostname, url.pathname);
          if (match.kind !== 'room') return await passThrough(request, url, env);
          // An admitted buyer in a room: to the origin from here too (null: the app serves it).
          const admitted = await serveAdmitted(request, url, env, ctx, match.room.eventId);
          if (admitted) return admitted;
        } catch (err) {
          return renderError(err, request.method, request.headers.get('accept') ?? '', '*');
        }
      }
    }
    return dispatch(...args);
  };
  return app;
}

/**
 * The gateway's own paths: `/_wr/...` and the JWKS, in any spelling (case, `//`, encodings), so
 * none reaches the origin or a room. Other `/.well-known/` paths belong to the origin (ACME,
 * security.txt, app links), but no room may cover them.
 */
export function isGatewayPath(pathname: string): boolean {
  if (pathname.startsWith('/_wr/') || pathname === '/.well-known/jwks.json') return true;
  // Normalizing lowercases, decodes %XX and drops empty, "." and ";..." parts of segments, so a
  // path that normalizes to a gateway path has "_wr" or "jwks" in some case, or a "%". Most
  // pass-through paths have neither and skip the normalization (it ran on every request).
  const lower = pathname.toLowerCase();
  if (!lower.includes('_wr') && !lower.includes('jwks') && !pathname.includes('%')) return false;
  const path = normalizePath(pathname);
  return path === '/_wr' || path.startsWith('/_wr/') || path === '/.well-known/jwks.json';
}

/**
 * The answer to an error: a GatewayError as problem details (a page for browsers), hono's own
 * (bearer auth) mapped to our codes, anything else logged and a generic 500 without a stack.
 */
function renderError(err: unknown, method: string, accept: string, route: string): Response | Promise<Response> {
  const browser = prefersHtml(accept);
  if (err instanceof GatewayError) {
    // 5xx answers are faults worth a line (origin down, object overloaded); 4xx are the client's.
    if (ERROR_TABLE[err.code].status >= 500) logDecision('fault', { code: err.code, method, route });
    return browser ? problemPage(err) : problemResponse(err);
  }
  if (err instanceof HTTPException) {
    // hono's own middleware (bearer auth): keep its status, map it to our codes.
    const code = err.status === 401 || err.status === 400 ? 'UNAUTHORIZED' : 'INVALID_REQUEST';
    const res = problemResponse(new GatewayError(code, { detail: ERROR_TABLE[code].title }));
    const challenge = err.getResponse().headers.get('www-authenticate');
    if (challenge) res.headers.set('www-authenticate', challenge);
    return res;
  }
  // Bugs and platform failures: log without request secrets, answer a generic 500.
  logDecision('error', {
    code: 'INTERNAL',
    method,
    route,
    error: err instanceof Error ? `${err.name}: ${err.message}` : 'non-Error thrown',
  });
  const internal = new GatewayError('INTERNAL');
  return browser ? problemPage(internal) : problemResponse(internal);
}
