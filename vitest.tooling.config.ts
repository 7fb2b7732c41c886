// Tests of the developer tooling in Node (`npm run test:tooling`): the dev server's config and port
// handling, its process guard, and the bundle-size tools. They check scripts/, not the product.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'tooling',
    include: ['test/tooling/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each file may start local servers on free ports: one file at a time.
    fileParallelism: false,
  },
});
