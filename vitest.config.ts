import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/testing/*.vitest.test.ts'],
    // Rebuilds dist/ when src/ is newer: many tests run the compiled library.
    globalSetup: ['test/support/ensure-build.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    // Deadlines for hangs, not speed checks: a loaded machine must never reach them. A hook
    // that starts a throwaway PostgreSQL server took 19 s beside other test runs on 2 cores
    // (the default hook timeout is 10 s).
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
