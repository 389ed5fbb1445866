/**
 * The quick tier for the developer's loop (`npm run test:quick`): the pure core and the engine,
 * which need neither PostgreSQL nor a browser. It does not replace `npm test`, which runs every
 * test.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/core/**/*.test.ts', 'test/engine/**/*.test.ts'],
    // No server and no browser to start: only the process guard and a fresh build.
    globalSetup: ['test/support/process-guard.ts', 'test/support/ensure-build.ts'],
    typecheck: { enabled: false },
  },
});
