// The gateway's Hono app: mounts each area and renders every error as problem details.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ERROR_TABLE, GatewayError, problemResponse } from './lib/errors';
import { logDecision } from '../contracts/log';
import { gatewaySettings } from './lib/settings';
import { publicJwks, tokenSettings } from './lib/token';
import { sameOrigin } from './middleware/same-origin';
import { DASHBOARD_SCRIPT, dashboardPage } from './pages/dashboard-page';
import { pageSecurityHeaders } from './lib/security-headers';
import { problemPage } from './pages/problem-page';
import { adminApi } from './routes/admin';
import { holdsApi } from './routes/holds';
import { originApi } from './routes/origin-api';
import { queueApi, saleArea } from './routes/queue';
import type { AppEnv } from './types';

/** Builds the gateway app. */
export function createApp() {
  const app = new Hono<AppEnv>();

  // Every variable is parsed once per env object (once per isolate): a missing or malformed one
  // fails each request with a 500 whose log line names the variable, instead of a silent default.
  app.use('*', async function settings(c, next) {
    gatewaySettings(c.env);
    await next();
  });

  app.get('/.well-known/jwks.json', async (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json(await publicJwks(tokenSettings(c.env)));
  });
  // Browsers ask for it on every page; answering 204 keeps error logs for real errors.
  app.get('/favicon.ico', (c) => c.body(null, 204, { 'cache-control': 'public, max-age=86400' }));
  app.route('/events', saleArea);
  // Visitor endpoints authenticate by cookie: refuse cross-site state changes (CSRF).
  app.use('/_wr/events/*', sameOrigin());
  // Rate limits sit where a request costs something: every new place in line counts against the
  // client IP's join limit (src/routes/queue.ts joinShard), holds against the account inside the
  // Inventory. Status polls are answered at the edge without an object call: not limited.
  app.route('/_wr/events', queueApi);
  app.route('/_wr/events', holdsApi);
  // The dashboard shell holds no data; its API calls carry the admin token.
  app.get('/_wr/admin', (c) => c.redirect('/_wr/admin/', 301));
  app.get('/_wr/admin/', async (c) => {
    c.header('cache-control', 'no-store');
    // This page holds the admin token: only its own script may run.
    for (const [k, v] of Object.entries(await pageSecurityHeaders([DASHBOARD_SCRIPT]))) c.header(k, v);
    return c.html(dashboardPage());
  });
  app.route('/_wr/admin', adminApi);
  app.route('/_wr/origin', originApi);

  app.notFound((c) =>
    problemResponse(new GatewayError('NOT_FOUND', { detail: `no route for ${c.req.method} ${new URL(c.req.url).pathname}` })),
  );
  app.onError((err, c) => {
    const accept = c.req.header('accept') ?? '';
    const browser = accept.includes('text/html') && !accept.includes('application/json');
    if (err instanceof GatewayError) {
      // 5xx answers are faults worth a line (origin down, object overloaded); 4xx are the client's.
      if (ERROR_TABLE[err.code].status >= 500) logDecision('fault', { code: err.code, method: c.req.method, route: c.req.routePath });
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
      method: c.req.method,
      route: c.req.routePath,
      error: err instanceof Error ? `${err.name}: ${err.message}` : 'non-Error thrown',
    });
    const internal = new GatewayError('INTERNAL');
    return browser ? problemPage(internal) : problemResponse(internal);
  });
  return app;
}
