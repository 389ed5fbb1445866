import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/testing/*.vitest.test.ts'],
    // Rebuilds dist/ when src/ is newer: many tests run the compiled library.
    globalSetup: ['test/support/ensure-build.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 60_000,
  },
});
