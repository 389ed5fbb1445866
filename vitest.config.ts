import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/testing/*.vitest.test.ts'],
    // Rebuilds dist/ when src/ is newer: many tests run the compiled library.
    globalSetup: ['test/support/ensure-build.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    // Deadlines for hangs, not speed checks: a loaded machine must never reach them. Beside
    // other test runs on 2 cores, a hook that starts a throwaway PostgreSQL server took 19 s
    // (the default hook timeout is 10 s) and the partitioned-workers property 35 to over 60 s.
    // A test that needs more says so; none says less.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
