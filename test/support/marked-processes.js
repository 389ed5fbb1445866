/**
 * The processes a test run started, found by a mark in their environment: a variable set in the
 * run (or in one test file's worker) that every child inherits, as do the servers `pg_ctl` starts
 * as daemons. Linux only (it reads `/proc`); elsewhere no process is found.
 *
 * Plain JavaScript (typed by JSDoc) because two kinds of process load it: the test run, and the
 * run's watchdog (run-watchdog.js), a bare `node` process that outlives a killed vitest.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The variable that marks every process of one test run. */
export const RUN_MARK = 'SIGNFOLD_TEST_RUN';
/** The variable that marks every process one test file's worker started. */
export const FILE_MARK = 'SIGNFOLD_TEST_FILE';

/**
 * A live process: its id and its command line (for the message that names it).
 * @typedef {{ readonly pid: number, readonly command: string }} MarkedProcess
 */

/**
 * The command line of `pid`, printable, or `''` when it is gone.
 * @param {number} pid
 * @returns {string}
 */
const commandOf = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((part) => part !== '')
      .join(' ')
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 300);
  } catch {
    return '';
  }
};

/**
 * Whether `pid` is a zombie (ended, not yet reaped): not a process that outlives anything.
 * @param {number} pid
 * @returns {boolean}
 */
const ended = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
};

/**
 * Every live process other than this one whose environment has `name=value`.
 * @param {string} name
 * @param {string} value
 * @returns {MarkedProcess[]}
 */
export const markedProcesses = (name, value) => {
  /** @type {string[]} */
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const mark = `${name}=${value}`;
  /** @type {MarkedProcess[]} */
  const found = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
    /** @type {string} */
    let environment;
    try {
      environment = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or another user's
    }
    if (!environment.split('\0').includes(mark) || ended(pid)) continue;
    found.push({ pid, command: commandOf(pid) });
  }
  return found;
};

/**
 * Waits up to `graceMs` for the marked processes to end (a fixture may have signalled one that
 * is still exiting), then kills what is left with SIGKILL and returns it: a process that outlived
 * its owner, to be reported.
 * @param {string} name
 * @param {string} value
 * @param {number} graceMs
 * @returns {Promise<MarkedProcess[]>}
 */
export const reapMarked = async (name, value, graceMs) => {
  const deadline = Date.now() + graceMs;
  let left = markedProcesses(name, value);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = markedProcesses(name, value);
  }
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGCONT'); // a stopped process dies of SIGKILL too, but say it plainly
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
  return left;
};

/**
 * `pid 123: node dist/cli/main.js serve …`, one a line.
 * @param {readonly MarkedProcess[]} processes
 * @returns {string}
 */
export const describeProcesses = (processes) =>
  processes.map(({ pid, command }) => `pid ${pid}: ${command}`).join('\n');
