import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLEAN_LOG, ROOT, removeTempDirs, runCli, tempDir, writeFixture } from './cli-helpers.js';

afterAll(removeTempDirs);

let log: string;
let dir: string;
beforeAll(async () => {
  log = await writeFixture('events.ndjson', CLEAN_LOG);
  dir = await tempDir();
});

/** Asserts exit 2, nothing on stdout, and exactly one `signfold: ` line on stderr, no stack. */
const expectFailure = async (args: string[], message: RegExp): Promise<void> => {
  const run = await runCli(args);
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(/^signfold: /);
  expect(run.stderr).not.toMatch(/\n\s+at |Error:/);
  expect(run.stderr.trimEnd()).toMatch(message);
};

describe('usage and input errors: exit 2, one line, no stack trace', () => {
  it.each([
    ['no command', [], /missing command/],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['an unknown global option', ['--frob'], /unknown option '--frob'/],
    ['an unknown flag', ['replay', '--frob', 'x.ndjson'], /unknown option '--frob'.*replay --help/],
    [
      'a flag without its value',
      ['replay', 'x.ndjson', '--until'],
      /'--until <value>' argument missing/,
    ],
    [
      'a value on a boolean flag',
      ['replay', '--json=yes', 'x'],
      /'--json' does not take an argument/,
    ],
    [
      '--until abc',
      ['replay', '--until', 'abc', 'x.ndjson'],
      /--until must be a non-negative integer \(got 'abc'\)/,
    ],
    ['--until -1', ['replay', '--until=-1', 'x.ndjson'], /--until must be a non-negative integer/],
    [
      '--policy other',
      ['replay', '--policy', 'retry', 'x.ndjson'],
      /--policy must be one of skip, halt/,
    ],
    ['a missing LOG argument', ['check'], /missing LOG/],
    ['an extra argument', ['check', 'a', 'b'], /unexpected argument 'b'/],
    ['inspect without --sign-request', ['inspect', 'x'], /missing --sign-request ID/],
    [
      'a non-numeric id',
      ['inspect', 'x', '--sign-request', '12a'],
      /--sign-request must be an integer \(got '12a'\)/,
    ],
    ['help on an unknown command', ['help', 'frob'], /unknown command 'frob'/],
  ])('%s', async (_name, args, message) => {
    await expectFailure(args, message);
  });

  it.each(['replay', 'check', 'inspect', 'validate'])('%s of a missing file', async (command) => {
    const missing = join(dir, 'missing.ndjson');
    const extra = command === 'inspect' ? ['--sign-request', '1'] : [];
    await expectFailure([command, missing, ...extra], new RegExp(`${missing}: no such file$`));
  });

  it.each(['replay', 'check', 'validate'])('%s of a directory', async (command) => {
    await expectFailure([command, dir], new RegExp(`${dir}: is a directory$`));
  });

  it('a missing, non-JSON or foreign snapshot', async () => {
    const missing = join(dir, 'nope.json');
    await expectFailure(['replay', log, '--from-snapshot', missing], /nope\.json: no such file/);
    const notJson = await writeFixture('snap.json', ['{"format":']);
    await expectFailure(['replay', log, '--from-snapshot', notJson], /snap\.json: not JSON/);
    const foreign = await writeFixture('other.json', [
      '{"format":"signfold.snapshot","version":99}',
    ]);
    await expectFailure(['replay', log, '--from-snapshot', foreign], /version 99 is not supported/);
  });

  it('a snapshot that cannot be written', async () => {
    const target = join(dir, 'no-such-dir', 'snap.json');
    await expectFailure(['replay', log, '--snapshot', target], /cannot write snapshot .*ENOENT/);
  });
});

describe('help and version', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--help lists the commands', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['replay', 'check', 'inspect', 'validate']) {
      expect(run.stdout).toContain(`  ${command} `);
    }
  });

  it.each([
    ['replay', '--from-snapshot FILE'],
    ['check', 'LOG:LINE: position P: reason'],
    ['inspect', '--sign-request ID'],
    ['validate', 'path: message'],
  ])('%s --help describes the command without running it', async (command, text) => {
    for (const args of [
      [command, '--help'],
      [command, 'missing.ndjson', '-h'],
      ['help', command],
    ]) {
      const run = await runCli(args);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(new RegExp(`^Usage: signfold ${command} `));
      expect(run.stdout).toContain(text);
    }
  });
});
