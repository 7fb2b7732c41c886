// CSRF defence for the cookie-authenticated visitor endpoints: state changes only from this origin.
import { createMiddleware } from 'hono/factory';
import { GatewayError } from '../lib/errors';
import type { AppEnv } from '../types';

/**
 * Refuses a state-changing request (not GET/HEAD) that a browser marks as cross-site
 * (`Sec-Fetch-Site: cross-site`, Fetch Metadata) or whose `Origin` names another host. Apps that
 * send neither header (they authenticate with bearer tokens, not cookies) pass.
 * @throws GatewayError CROSS_SITE_REQUEST (403)
 */
export function sameOrigin() {
  return createMiddleware<AppEnv>(async function sameOrigin(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const site = c.req.header('sec-fetch-site');
      const origin = c.req.header('origin');
      let foreign = site === 'cross-site';
      if (origin !== undefined) {
        try {
          foreign ||= new URL(origin).host !== new URL(c.req.url).host;
        } catch {
          foreign = true; // "null" or garbage
        }
      }
      if (foreign) throw new GatewayError('CROSS_SITE_REQUEST', { detail: 'state-changing requests must come from this site' });
    }
    await next();
  });
}
