/**
 * `signfold … | head`: a reader that closes the pipe early. Every command must
 * stop quietly (exit 0, nothing on stderr) instead of dying of EPIPE.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, removeTempDirs, tempDir } from './cli-helpers.js';

afterAll(removeTempDirs);

const EXAMPLE = join(ROOT, 'examples/events.ndjson');

/** Runs the CLI with stdout a pipe that is closed before it writes anything. */
const runWithClosedStdout = (args: readonly string[]) =>
  new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });

describe('a closed stdout', () => {
  it.each([
    ['replay', [EXAMPLE]],
    ['replay --json', [EXAMPLE, '--json']],
    ['check', [EXAMPLE]],
    ['inspect', [EXAMPLE, '--sign-request', '100073']],
    ['validate', [join(ROOT, 'examples/sign-request.json')]],
    ['help', []],
    ['--version', []],
  ])('stops %s quietly with exit 0', async (command, rest) => {
    const words = command.split(' ');
    const args =
      words[0] === 'help' || words[0] === '--version'
        ? words
        : [words[0], ...rest, ...words.slice(1)];
    const { code, signal, stderr } = await runWithClosedStdout(args as string[]);
    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('stops quietly on a large output cut off part-way', async () => {
    const dir = await tempDir();
    const big = join(dir, 'big.ndjson');
    const example = await readFile(EXAMPLE, 'utf8');
    await writeFile(big, example.repeat(20));
    const { code, stderr } = await runWithClosedStdout(['check', big]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
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
