// The pages' static scripts parse, as written and as the page assets ship them (scripts/page-assets.ts):
// a merge once left the dashboard's script with `const b` declared twice in one scope, so the
// dashboard never showed its panel after sign-in.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { SALE_SCRIPT } from '../../origin-stub/sale-script';
import { DASHBOARD_SCRIPT } from '../../src/pages/dashboard-page';
import { DASHBOARD_ACCESS_SCRIPT } from '../../src/pages/dashboard-access';
import { WAITING_SCRIPT } from '../../src/pages/waiting-script';
import { CHECK_SCRIPT } from '../../src/pages/check-script';
import { SCRIPT_PATHS } from '../../src/lib/page-assets';

const scripts = {
  dashboard: DASHBOARD_SCRIPT,
  dashboardAccess: DASHBOARD_ACCESS_SCRIPT,
  waiting: WAITING_SCRIPT,
  sale: SALE_SCRIPT,
  check: CHECK_SCRIPT,
};

describe('static page scripts', () => {
  for (const [page, script] of Object.entries(scripts)) {
    it(`the ${page} page's script is valid JavaScript`, () => {
      // Compiled, never run: a SyntaxError (a duplicate declaration, say) throws here.
      expect(() => new Function(script)).not.toThrow();
    });
  }

  for (const [page, path] of Object.entries(SCRIPT_PATHS)) {
    it(`the ${page} page's script asset (${path}) is valid JavaScript`, async () => {
      const res = await env.ASSETS.fetch(`https://assets.invalid${path}`);
      expect(res.status).toBe(200);
      const script = await res.text();
      expect(() => new Function(script)).not.toThrow();
    });
  }

  it('catches a duplicate declaration (the failing input)', () => {
    expect(() => new Function('const b = 1;\nconst b = 2;')).toThrow(SyntaxError);
  });
});
