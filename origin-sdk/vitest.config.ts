// The origin SDK's and the example origin's own tests, in Node (they must work outside workerd),
// and the Node-side tests of the bench tools (test/node/).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'origin-sdk',
    root: new URL('..', import.meta.url).pathname,
    include: ['origin-sdk/test/**/*.test.ts', 'example-origin/test/**/*.test.ts', 'test/node/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
