#!/usr/bin/env node
/**
 * The `signfold` executable: wires `run` to the real process. All logic lives
 * in `run.ts` and the command modules, which tests drive directly.
 */
import { performance } from 'node:perf_hooks';
import { closableStdout } from './closable-stdout.js';
import { installCrashHandler } from './crash.js';
import { run } from './run.js';

// `signfold check LOG | head` closes stdout early: output stops, the exit code stays the command's.
const stdout = closableStdout(process.stdout, (code) => process.exit(code));
// A closed stderr leaves nowhere to report anything: the exit code still tells.
process.stderr.on('error', () => undefined);

const debug = process.env.SIGNFOLD_DEBUG === '1';

// Last line of defence: anything escaping `run` (it should not) is still one line, exit 2.
installCrashHandler(process, debug);

process.exitCode = await run(process.argv.slice(2), {
  stdout,
  stderr: process.stderr,
  now: () => performance.now(),
  debug,
});
