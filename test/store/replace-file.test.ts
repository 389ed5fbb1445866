/** replaceFile: whole or not at all, no temporary file left behind, none shared by two writers. */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isReplacementTemporary,
  isTemporaryOf,
  replaceFile,
  startReplacement,
} from '../../src/store/replace-file.js';
import { removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid ?? 0;

describe('replaceFile', () => {
  it('replaces the content whole and leaves nothing else beside it', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    await writeFile(path, 'old');
    await replaceFile(path, 'new content');
    expect(await readFile(path, 'utf8')).toBe('new content');
    await replaceFile(path, Buffer.from('bytes'));
    expect(await readFile(path, 'utf8')).toBe('bytes');
    await replaceFile(path, async (write) => {
      for (const piece of ['a', 'b', 'c']) await write(Buffer.from(piece));
    });
    expect(await readFile(path, 'utf8')).toBe('abc');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('creates the file when there is none', async () => {
    const dir = await tempDir();
    const path = join(dir, 'fresh.json');
    await replaceFile(path, '{}');
    expect(await readFile(path, 'utf8')).toBe('{}');
  });

  it('a failure while writing leaves the old file and no temporary file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    await writeFile(path, 'old');
    const failing = replaceFile(path, async (write) => {
      await write(Buffer.from('half of the new'));
      throw new Error('crash before the rename');
    });
    await expect(failing).rejects.toThrow('crash before the rename');
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('a failed rename leaves the target and no temporary file', async () => {
    const dir = await tempDir();
    // A non-empty directory cannot be renamed over.
    const path = join(dir, 'occupied');
    await mkdir(path);
    await writeFile(join(path, 'inside'), 'x');
    await expect(replaceFile(path, 'new')).rejects.toMatchObject({ code: expect.any(String) });
    expect(await readdir(dir)).toEqual(['occupied']);
  });

  it('an abandoned replacement leaves the old file and no temporary file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    await writeFile(path, 'old');
    const replacement = await startReplacement(path);
    await replacement.write(Buffer.from('new'));
    await replacement.finish();
    expect(await readFile(replacement.temporary, 'utf8')).toBe('new');
    await replacement.abandon();
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('concurrent writers never share a temporary file, and the last rename wins whole', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    const contents = Array.from({ length: 16 }, (_, i) => `${i}:${'x'.repeat(10_000 + i)}`);
    const replacements = await Promise.all(contents.map(() => startReplacement(path)));
    expect(new Set(replacements.map((r) => r.temporary)).size).toBe(contents.length);
    for (const replacement of replacements) await replacement.abandon();
    await Promise.all(contents.map((content) => replaceFile(path, content)));
    expect(contents).toContain(await readFile(path, 'utf8'));
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('a replacement under way survives the cleanup of another one, however the path is spelled', async () => {
    const dir = await tempDir();
    const target = join(dir, 'state.json');
    const slow = await startReplacement(`${dir}//state.json`);
    await replaceFile(`${dir}/./state.json`, 'quick');
    await slow.write(Buffer.from('slow'));
    await slow.finish();
    await slow.commit();
    expect(await readFile(target, 'utf8')).toBe('slow');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('a reader sees the old content or the new, never a part', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    const versions = Array.from({ length: 20 }, (_, i) => String(i).repeat(50_000));
    await writeFile(path, versions[0] as string);
    let writing = true;
    const seen = new Set<string>();
    const reader = (async () => {
      while (writing) seen.add(await readFile(path, 'utf8'));
    })();
    for (const version of versions.slice(1)) await replaceFile(path, version);
    writing = false;
    await reader;
    for (const content of seen) expect(versions).toContain(content);
  });

  it('removes the temporary files killed replacements of the same target left, and nothing else', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    const crashed = `state.json.${deadPid()}.0badc0de.tmp`;
    const liveWriter = `state.json.${process.ppid}.abcdef01.tmp`;
    const otherTarget = `other.json.${deadPid()}.0badc0de.tmp`;
    const unrelated = 'state.json.notes.tmp';
    for (const name of [crashed, liveWriter, otherTarget, unrelated]) {
      await writeFile(join(dir, name), 'half');
    }
    await replaceFile(path, 'new');
    expect((await readdir(dir)).sort()).toEqual(
      [liveWriter, otherTarget, 'state.json', unrelated].sort(),
    );
  });

  it('names its temporary files so that scans of the directory can tell them', () => {
    expect(isTemporaryOf('log.ndjson.123.0badc0de.tmp', 'log.ndjson')).toBe(true);
    expect(isTemporaryOf('log.ndjson.torn-1.123.0badc0de.tmp', 'log.ndjson')).toBe(false);
    expect(isTemporaryOf('log.ndjson.reactors', 'log.ndjson')).toBe(false);
    expect(isReplacementTemporary('log.ndjson.torn-1.123.0badc0de.tmp')).toBe(true);
    expect(isReplacementTemporary('log.ndjson.torn-1')).toBe(false);
  });
});
