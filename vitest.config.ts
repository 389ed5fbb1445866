import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/testing/*.vitest.test.ts'],
    // Rebuilds dist/ when src/ is newer: many tests run the compiled library.
    globalSetup: ['test/support/ensure-build.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 60_000,
    // Hooks start and stop throwaway PostgreSQL servers (initdb, pg_ctl), serve processes and
    // chromium: on a busy machine (two suites at once) that takes well over vitest's default 10 s.
    hookTimeout: 120_000,
  },
});
