// Origin stub Worker: routes each event's pages and checkout to that event's Shop object.
export { Shop } from './shop';

// Where the stub publishes its entry-token keys (JWKS, RFC 7517) when `ENTRY_JWKS` is set (not exported: a Worker's main module exports handlers only).
const ENTRY_JWKS_PATH = '/.well-known/entry-jwks.json';

/** The stub site's home page (static, so a CDN may cache it). */
const HOME_PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Demo Tickets</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
  <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
    <h1>Demo Tickets</h1>
    <p>The ticketing site's own home page, served by the origin. No waiting room covers it.</p>
    <p><a href="/events/demo/">Demo concert: buy tickets</a> (a waiting room covers this one)</p>
  </body>
</html>
`;

/** RFC 9457 problem details for a path the stub does not serve (it serves `/`, `/events/{id}/...`, `/admin/events/{id}/...`, `/webhooks/events/{id}/...`, `/orders/events/{id}/...` and `/offers/events/{id}`). */
function notFound(path: string): Response {
  const body = {
    type: 'about:blank',
    title: 'Not Found',
    status: 404,
    code: 'NOT_FOUND',
    detail: `the demo site serves no page at ${path}`,
  };
  return Response.json(body, { status: 404, headers: { 'content-type': 'application/problem+json' } });
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    // Sale pages and checkout under /events/{id}; the operator API under /admin/events/{id}; payment
    // webhooks, returns and the resale offer page under /webhooks/, /orders/ and /offers/events/{id}, outside the sale's room.
    const match = /^\/(?:admin\/|webhooks\/|offers\/|orders\/)?events\/([a-z0-9][a-z0-9-]{0,63})(\/|$)/.exec(url.pathname);
    if (url.pathname === '/health') return Response.json({ ok: true });
    // The public keys of the entry tokens this site signs (an event's `entry.jwksPath`), when configured.
    if (url.pathname === ENTRY_JWKS_PATH && env.ENTRY_JWKS)
      return new Response(env.ENTRY_JWKS, { headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' } });
    // The site's own home page: no room covers it, so the gateway passes it through untouched.
    if (url.pathname === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
      return new Response(HOME_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=60' } });
    }
    // Browsers ask for /favicon.ico on every page: an empty answer, not an error in their console.
    if (url.pathname === '/favicon.ico') return new Response(null, { status: 204, headers: { 'cache-control': 'public, max-age=86400' } });
    if (!match) return notFound(url.pathname);
    return env.SHOP.getByName(match[1]!).fetch(request);
  },
} satisfies ExportedHandler<OriginEnv>;
