#!/usr/bin/env node
/**
 * The `signfold` executable: wires `run` to the real process. All logic lives
 * in `run.ts` and the command modules, which tests drive directly.
 */
import { performance } from 'node:perf_hooks';
import { installCrashHandler } from './crash.js';
import { run } from './run.js';

// `signfold replay --json | head` closes stdout early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  process.exit(error.code === 'EPIPE' ? 0 : 2);
});
// A closed stderr leaves nowhere to report anything: the exit code still tells.
process.stderr.on('error', () => undefined);

const debug = process.env.SIGNFOLD_DEBUG === '1';

// Last line of defence: anything escaping `run` (it should not) is still one line, exit 2.
installCrashHandler(process, debug);

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  now: () => performance.now(),
  debug,
});
