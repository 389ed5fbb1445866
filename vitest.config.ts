import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/testing/*.vitest.test.ts'],
    // The temp dir first (in memory where there is room: ram-tmpdir.ts), so that everything
    // after it, the guard's watchdog included, inherits it. The process guard next: its teardown
    // runs last and fails the run if a process of it still lives. Then: rebuild dist/ when src/ is
    // newer (many tests run the compiled library); the run's PostgreSQL (one initdb, one shared
    // server per worker) and one browser for the run, started together.
    globalSetup: [
      'test/support/ram-tmpdir.ts',
      'test/support/process-guard.ts',
      'test/support/ensure-build.ts',
      'test/support/services-setup.ts',
    ],
    // Each file's processes must end with its teardown (a failing one names them).
    setupFiles: ['test/support/process-fixture.ts'],
    // `npm test` runs without it (--typecheck.enabled=false): its `npm run typecheck` already
    // compiles these files (tsconfig.json includes test/), and a type assertion that fails there
    // is a compile error; a second tsc over them (and the src/ they import) would only repeat it.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    // Most files spend their time waiting on child processes, servers and PostgreSQL rather than
    // computing: the default (one worker fewer than cores) ran a single file at a time on a
    // 2-core machine and left a core idle for most of the run.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // A worker runs its files one after another in one module registry, instead of a fresh
    // process per file: loading vitest, the library and its dependencies again for each of 240
    // files cost about 0.6 s of CPU per file. The price is discipline, which the suite keeps: no
    // file leaves state behind (a file that mocks a module mocks a fresh copy and takes it back;
    // one that sets an environment variable restores it), and each file's processes end with it.
    isolate: false,
    // Deadlines for hangs, not speed checks: a loaded machine must never reach them. Beside
    // other test runs on 2 cores, a hook that starts a throwaway PostgreSQL server took 19 s
    // (the default hook timeout is 10 s) and the partitioned-workers property 35 to over 60 s.
    // A test that needs more says so; none says less.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
