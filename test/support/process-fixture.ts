/**
 * Vitest setup file: every process a test file starts (its children, the CLI processes, a
 * PostgreSQL server of its own) carries {@link FILE_MARK} with this worker's pid. After the file's
 * own teardowns, a marked process still alive is killed and the file fails, naming it: a test that
 * failed or timed out still leaves nothing behind.
 */
import { afterAll } from 'vitest';
import { describeProcesses, FILE_MARK, reapMarked } from './marked-processes.js';

const mark = String(process.pid);
process.env[FILE_MARK] = mark;

// Registered before the file's own hooks, so it runs after them (vitest runs after-hooks as a stack).
afterAll(async () => {
  const left = await reapMarked(FILE_MARK, mark, 5000);
  if (left.length > 0) {
    throw new Error(
      `${left.length} process(es) outlived this file's teardown (killed now):\n${describeProcesses(left)}`,
    );
  }
});
