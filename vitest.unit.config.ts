// Pure tests in Node, no workerd (`npm run test:unit`): test/unit (the gateway's pure rules, over
// modules that import nothing of the runtime) and the origin SDK's and example origin's own tests.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [{ test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' } }, './origin-sdk/vitest.config.ts'],
  },
});
