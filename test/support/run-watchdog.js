/**
 * The test run's watchdog: a bare `node` process that stops the run's processes when the run
 * itself dies without its teardown. A vitest killed by a signal (a session's time limit, an
 * impatient Ctrl-\, the OOM killer) runs no global teardown, so the process guard never reaps,
 * and the PostgreSQL servers `pg_ctl` started as daemons would run on for good.
 *
 * It learns that the run is gone from a pipe, not by polling a pid that the system may give to
 * another process: the run holds the pipe's writing end, and the kernel closes it however the
 * run ends. A run that ends well writes `done` first, and the watchdog leaves the rest to the
 * process guard. Otherwise it stops every process marked with the run's mark (SIGTERM, then
 * SIGKILL after 5 s), removes the temporary directory of each PostgreSQL server it stopped and
 * the directories the run registered, says so on the run's standard error, and exits.
 *
 * Plain JavaScript, typed by JSDoc, because it runs under a bare `node`.
 */
import { spawn } from 'node:child_process';
import { readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeProcesses, markedProcesses, reapMarked } from './marked-processes.js';

/** How long stopped processes get to end after SIGTERM before SIGKILL. */
const GRACE_MS = 5000;

/**
 * The watchdog of a run, as the run sees it.
 * @typedef {object} Watchdog
 * @property {(dir: string) => void} removeIfRunDies a directory to remove if the run dies
 * @property {() => void} done the run ended well: the watchdog exits and does nothing
 */

/**
 * Starts the watchdog of the processes whose environment has `name=value`. The watchdog itself
 * does not carry the mark, and does not keep the run's event loop alive.
 * @param {string} name
 * @param {string} value
 * @returns {Watchdog}
 */
export const startWatchdog = (name, value) => {
  const environment = { ...process.env };
  delete environment[name];
  // Its own process group: a Ctrl-C meant for the run does not reach it.
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), name, value], {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
    env: environment,
  });
  child.unref();
  const pipe = /** @type {import('node:net').Socket} */ (child.stdin);
  pipe.unref();
  // A watchdog that died first must not take the run with it (EPIPE on a write).
  pipe.on('error', () => undefined);
  return {
    removeIfRunDies: (dir) => {
      pipe.write(`dir ${resolve(dir)}\n`);
    },
    done: () => {
      pipe.end('done\n');
    },
  };
};

/**
 * The temporary directory of a PostgreSQL server (`<tmpdir>/signfold-pg-…/data`, its working
 * directory), or undefined for any other process.
 * @param {number} pid
 * @returns {string | undefined}
 */
const serverDirectory = (pid) => {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    const dir = dirname(cwd);
    const inTemporary = dirname(dir) === resolve(tmpdir());
    return basename(cwd) === 'data' && inTemporary && basename(dir).startsWith('signfold-pg-')
      ? dir
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Stops the run's processes and removes its directories.
 * @param {string} name
 * @param {string} value
 * @param {readonly string[]} registered
 */
const cleanUp = async (name, value, registered) => {
  const found = markedProcesses(name, value);
  const dirs = new Set(registered);
  for (const { pid } of found) {
    const dir = serverDirectory(pid);
    if (dir !== undefined) dirs.add(dir);
    try {
      process.kill(pid, 'SIGCONT'); // a paused process cannot act on SIGTERM
      process.kill(pid, 'SIGTERM');
    } catch {
      // ended meanwhile
    }
  }
  const killed = await reapMarked(name, value, GRACE_MS);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (found.length > 0 || dirs.size > 0) {
    process.stderr.write(
      `\nsignfold test watchdog: the test run ended without its teardown; stopped ${found.length} process(es)` +
        `${killed.length > 0 ? ` (${killed.length} with SIGKILL)` : ''} and removed ${dirs.size} director(ies)` +
        `${found.length > 0 ? `:\n${describeProcesses(found)}` : ''}\n`,
    );
  }
};

/**
 * The watchdog's own process: reads the run's pipe until it closes.
 * @param {string} name
 * @param {string} value
 */
const watch = (name, value) => {
  /** @type {string[]} */
  const registered = [];
  let ended = false;
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'done') ended = true;
      else if (line.startsWith('dir /')) registered.push(line.slice(4));
    }
  });
  process.stdin.on('close', () => {
    if (ended) process.exit(0);
    cleanUp(name, value, registered).then(
      () => process.exit(0),
      (cause) => {
        process.stderr.write(`signfold test watchdog failed: ${String(cause)}\n`);
        process.exit(1);
      },
    );
  });
};

const [, script, name, value] = process.argv;
if (script !== undefined && resolve(script) === fileURLToPath(import.meta.url)) {
  if (name === undefined || value === undefined || name === '' || value === '') {
    process.stderr.write('usage: node run-watchdog.js MARK_NAME MARK_VALUE\n');
    process.exit(2);
  }
  watch(name, value);
}
