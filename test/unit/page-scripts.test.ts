// The pages' static scripts parse: a merge once left the dashboard's script with `const b`
// declared twice in one scope, so the dashboard never showed its panel after sign-in.
import { describe, expect, it } from 'vitest';
import { SALE_SCRIPT } from '../../origin-stub/sale-script';
import { DASHBOARD_SCRIPT } from '../../src/pages/dashboard-page';
import { WAITING_SCRIPT } from '../../src/pages/waiting-page';
import { CHECK_SCRIPT } from '../../src/pages/check-page';

const scripts = { dashboard: DASHBOARD_SCRIPT, waiting: WAITING_SCRIPT, sale: SALE_SCRIPT, check: CHECK_SCRIPT };

describe('static page scripts', () => {
  for (const [page, script] of Object.entries(scripts)) {
    it(`the ${page} page's script is valid JavaScript`, () => {
      // Compiled, never run: a SyntaxError (a duplicate declaration, say) throws here.
      expect(() => new Function(script)).not.toThrow();
    });
  }

  it('catches a duplicate declaration (the failing input)', () => {
    expect(() => new Function('const b = 1;\nconst b = 2;')).toThrow(SyntaxError);
  });
});
