import { link, mkdir, readFile, stat, symlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLEAN_LOG, removeTempDirs, runCli, summaryValue, writeFixture } from '../cli-helpers.js';

afterAll(removeTempDirs);

/** A fresh copy of the clean fixture log, with its bytes and modification time. */
const freshLog = async () => {
  const path = await writeFixture('events.ndjson', CLEAN_LOG);
  const dir = join(path, '..');
  return { path, dir, bytes: await readFile(path), mtime: (await stat(path)).mtimeMs };
};

describe('signfold replay --snapshot naming the log itself', () => {
  it.each([
    ['the same path', async (path: string) => path],
    [
      'another spelling of the path',
      async (path: string, dir: string) => join(dir, '.', '..', relative(join(dir, '..'), path)),
    ],
    [
      'a hard link to the log',
      async (path: string, dir: string) => {
        const alias = join(dir, 'hard.ndjson');
        await link(path, alias);
        return alias;
      },
    ],
    [
      'a symbolic link to the log',
      async (path: string, dir: string) => {
        const alias = join(dir, 'sym.ndjson');
        await symlink(path, alias);
        return alias;
      },
    ],
    [
      'a path through a symbolically linked directory',
      async (_path: string, dir: string) => {
        const alias = join(dir, 'linked-dir');
        await symlink(dir, alias);
        return join(alias, 'events.ndjson');
      },
    ],
  ])('is refused (exit 2, one line) and leaves the log untouched: %s', async (_name, target) => {
    const { path, dir, bytes, mtime } = await freshLog();
    const snapshot = await target(path, dir);
    for (const extra of [[], ['--json']]) {
      const run = await runCli(['replay', path, '--snapshot', snapshot, ...extra]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^signfold: --snapshot .* is the same file as the log .*\n$/);
      expect(run.stderr.split('\n')).toHaveLength(2);
    }
    expect(await readFile(path)).toEqual(bytes);
    expect((await stat(path)).mtimeMs).toBe(mtime);
  });

  it('is refused when the log is given through a link and the snapshot by its real path', async () => {
    const { path, dir, bytes } = await freshLog();
    const alias = join(dir, 'alias.ndjson');
    await symlink(path, alias);
    const run = await runCli(['replay', alias, '--snapshot', path]);
    expect(run.code).toBe(2);
    expect(await readFile(path)).toEqual(bytes);
  });

  it('still writes a snapshot elsewhere, and may overwrite the snapshot it resumed from', async () => {
    const { path, dir } = await freshLog();
    const snapshot = join(dir, 'snap.json');
    expect((await runCli(['replay', path, '--snapshot', snapshot])).code).toBe(0);
    const again = await runCli([
      'replay',
      path,
      '--from-snapshot',
      snapshot,
      '--snapshot',
      snapshot,
    ]);
    expect(again.code).toBe(0);
    expect(summaryValue(again.stdout, 'Snapshot')).toBe(`written to ${snapshot}`);
    await mkdir(join(dir, 'sub'));
    const nested = join(dir, 'sub', 'events.ndjson');
    expect((await runCli(['replay', path, '--snapshot', nested])).code).toBe(0);
  });

  it('--from-snapshot naming the log only reads it: not a snapshot (exit 2), log untouched', async () => {
    const { path, bytes } = await freshLog();
    const run = await runCli(['replay', path, '--from-snapshot', path]);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('same file');
    expect(await readFile(path)).toEqual(bytes);
  });
});
