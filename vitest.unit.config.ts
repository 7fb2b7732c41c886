// Pure tests in Node, no workerd (`npm run test:unit`): test/unit (the gateway's pure rules, over
// modules that import nothing of the runtime) and the origin SDK's and example origin's own tests.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Decision logs and other console output are kept for failing tests only.
    silent: 'passed-only',
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // The hang guard the workerd tests have (vitest.config.ts), not a speed target (those live
          // in bench/): the property tests run for seconds on a loaded 2-core machine.
          testTimeout: 300_000,
        },
      },
      './origin-sdk/vitest.config.ts',
    ],
  },
});
