// The origin SDK's and the example origin's own tests, in Node (they must work outside workerd).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'origin-sdk',
    root: new URL('..', import.meta.url).pathname,
    include: ['origin-sdk/test/**/*.test.ts', 'example-origin/test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
