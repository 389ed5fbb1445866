/**
 * Vitest setup file: every process a test file starts (its children, the CLI processes, a
 * PostgreSQL server of its own) carries {@link FILE_MARK} with this worker's pid. After the file's
 * own teardowns, a marked process still alive is killed and the file fails, naming it: a test that
 * failed or timed out still leaves nothing behind.
 *
 * With `SIGNFOLD_TEST_CPU_LOG=FILE`, it also appends one JSON line per test file to FILE: the CPU
 * seconds of the worker and of the child processes it reaped while the file ran (not the
 * PostgreSQL servers, which are daemons), to find what the suite spends its time on.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { describeProcesses, FILE_MARK, reapMarked } from './marked-processes.js';

const mark = String(process.pid);
process.env[FILE_MARK] = mark;

/** CPU seconds of the reaped children of this process (`cutime` + `cstime` of /proc/self/stat). */
const childrenCpu = (): number => {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
};

const cpuLog = process.env.SIGNFOLD_TEST_CPU_LOG;
// Taken before the test file's own imports, which are part of its cost.
const started =
  cpuLog === undefined
    ? undefined
    : { self: process.cpuUsage(), children: childrenCpu(), at: performance.now() };

// Registered before the file's own hooks, so it runs after them (vitest runs after-hooks as a stack).
afterAll(async () => {
  const left = await reapMarked(FILE_MARK, mark, 5000);
  if (cpuLog !== undefined && started !== undefined) {
    const self = process.cpuUsage(started.self);
    appendFileSync(
      cpuLog,
      `${JSON.stringify({
        file: expect.getState().testPath,
        self: (self.user + self.system) / 1e6,
        children: childrenCpu() - started.children,
        wall: (performance.now() - started.at) / 1000,
      })}\n`,
    );
  }
  if (left.length > 0) {
    throw new Error(
      `${left.length} process(es) outlived this file's teardown (killed now):\n${describeProcesses(left)}`,
    );
  }
});
