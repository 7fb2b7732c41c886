// Origin stub Worker: routes each event's pages and checkout to that event's Shop object.
export { Shop } from './shop';

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    // Sale pages, checkout and webhooks under /events/{id}; the operator API under /admin/events/{id}.
    const match = /^\/(?:admin\/)?events\/([a-z0-9][a-z0-9-]{0,63})(\/|$)/.exec(url.pathname);
    if (url.pathname === '/health') return Response.json({ ok: true });
    if (!match) return Response.json({ code: 'NOT_FOUND' }, { status: 404 });
    return env.SHOP.getByName(match[1]!).fetch(request);
  },
} satisfies ExportedHandler<OriginEnv>;
