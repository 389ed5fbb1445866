/**
 * `signfold … | head`: a reader that closes the pipe early. Every command must
 * stop quietly (nothing on stderr, no EPIPE crash) and still exit with its own
 * code: under `set -o pipefail`, `check LOG | head` must fail when the log has
 * problems, as it does when its whole output is read.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLEAN_LOG,
  CLI,
  MIXED_LOG,
  ROOT,
  removeTempDirs,
  runCli,
  tempDir,
  writeFixture,
} from './cli-helpers.js';

afterAll(removeTempDirs);

const EXAMPLE = join(ROOT, 'examples/events.ndjson');

type Closed = { code: number | null; signal: string | null; stderr: string };

/**
 * Runs the CLI with stdout a pipe that is closed before it writes anything
 * (`afterFirstChunk`: once its first chunk has arrived).
 */
const runWithClosedStdout = (args: readonly string[], afterFirstChunk = false) =>
  new Promise<Closed & { chunks: number }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let chunks = 0;
    if (afterFirstChunk) {
      child.stdout.once('data', () => {
        chunks += 1;
        child.stdout.destroy();
      });
    } else {
      child.stdout.destroy();
    }
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr, chunks }));
  });

/** A log with problems, large enough that its `check` output fills a pipe several times over. */
const bigLogWithProblems = async (): Promise<string> => {
  const big = join(await tempDir(), 'big.ndjson');
  await writeFile(big, (await readFile(EXAMPLE, 'utf8')).repeat(20));
  return big;
};

describe('a closed stdout', () => {
  it.each([
    ['replay', [EXAMPLE]],
    ['replay --json', [EXAMPLE, '--json']],
    ['check', [EXAMPLE]],
    ['inspect', [EXAMPLE, '--sign-request', '100073']],
    ['inspect --sign-request 1', [EXAMPLE]],
    ['validate', [join(ROOT, 'examples/sign-request.json')]],
    ['validate', [join(ROOT, 'package.json')]],
    ['help', []],
    ['--version', []],
  ])(
    'stops %s quietly (no EPIPE) with the exit code and stderr it has when read',
    async (command, rest) => {
      const words = command.split(' ');
      const args =
        words[0] === 'help' || words[0] === '--version'
          ? words
          : [words[0] ?? '', ...rest, ...words.slice(1)];
      const read = await runCli(args);
      const closed = await runWithClosedStdout(args);
      expect({ code: closed.code, signal: closed.signal, stderr: closed.stderr }).toEqual({
        code: read.code,
        signal: null,
        // stderr is still the reader's: a failure is reported there as when stdout is read.
        stderr: read.stderr,
      });
    },
  );

  it('keeps check’s exit 1 and 0 (a log with and without problems)', async () => {
    const mixed = await writeFixture('mixed.ndjson', MIXED_LOG);
    const clean = await writeFixture('clean.ndjson', CLEAN_LOG);
    expect((await runWithClosedStdout(['check', mixed])).code).toBe(1);
    expect((await runWithClosedStdout(['check', clean])).code).toBe(0);
  });

  it('keeps check’s exit 1 on a large output cut off after the first chunk', async () => {
    const big = await bigLogWithProblems();
    const { code, signal, stderr, chunks } = await runWithClosedStdout(['check', big], true);
    expect({ code, signal, stderr, chunks }).toEqual({
      code: 1,
      signal: null,
      stderr: '',
      chunks: 1,
    });
  });

  it('fails `check LOG | head -1` under pipefail, and passes it on a clean log', async () => {
    const big = await bigLogWithProblems();
    const clean = await writeFixture('clean.ndjson', CLEAN_LOG);
    const pipeline = (log: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(
          'bash',
          ['-o', 'pipefail', '-c', 'node "$0" check "$1" | head -1', CLI, log],
          { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (text: string) => {
          stdout += text;
        });
        child.stderr.setEncoding('utf8').on('data', (text: string) => {
          stderr += text;
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const failing = await pipeline(big);
    expect(failing.stdout.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect({ code: failing.code, stderr: failing.stderr }).toEqual({ code: 1, stderr: '' });
    expect((await pipeline(clean)).code).toBe(0);
  });
});

describe('a closed stderr', () => {
  it('still exits with the command’s code', async () => {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'replay', join(ROOT, 'no-such.ndjson')], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr.destroy();
      child.on('error', reject);
      child.on('close', resolve);
    });
    expect(code).toBe(2);
  });
});
