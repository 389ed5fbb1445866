/**
 * The file log's writer lock within one process: refusal, release, stale
 * locks (dead pid, expired heartbeat, unreadable, a dead twin with our pid),
 * racing openers, fencing after a lost lock. Cross-process behaviour is in
 * writer-lock-processes.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { openLog, readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

/** A pid no process has any more: that of a child that already exited. */
const deadPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not start a child process');
  return child.pid;
};

const lockFile = (content: object): string => `${JSON.stringify(content)}\n`;

const holder = (pid: number, host = hostname()) => ({
  pid,
  host,
  since: '2026-01-02T03:04:05.000Z',
  token: 'feedface',
});

/** Sets a file's modification time `ms` into the past. */
const age = async (path: string, ms: number): Promise<void> => {
  const then = new Date(Date.now() - ms);
  await utimes(path, then, then);
};

const freshLog = async (name = 'log.ndjson') => join(await tempDir(), name);

describe('writer lock', () => {
  it('refuses a second open in the same process with a locked error, writing nothing', async () => {
    const path = await freshLog();
    const first = await openLog(path);
    await first.append({ type: 'x' });
    const before = await readFile(path);
    const second = await openFileEventLog(path);
    const error = second._unsafeUnwrapErr();
    expect(error).toMatchObject({
      kind: 'locked',
      path,
      lockPath: `${path}.lock`,
      holder: { pid: process.pid, host: hostname() },
    });
    expect(error.message).toContain(`is locked by this process (pid ${process.pid}) since `);
    expect(error.message).toContain('only one writer may append');
    expect(await readFile(path)).toEqual(before);
    await first.close();
  });

  it('writes the holder into <log>.lock and removes it on close; the log can then be reopened', async () => {
    const path = await freshLog();
    const log = await openLog(path);
    const content = JSON.parse(await readFile(`${path}.lock`, 'utf8'));
    expect(content).toMatchObject({ pid: process.pid, host: hostname() });
    expect(Date.parse(content.since)).not.toBeNaN();
    await log.close();
    expect(await readdir(join(path, '..'))).toEqual(['log.ndjson']);
    const again = await openLog(path);
    await again.close();
  });

  it('takes over a lock whose holder died on this host, at once', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockFile(holder(deadPid())));
    const log = await openLog(path);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8')).pid).toBe(process.pid);
    await log.close();
  });

  it('takes over a lock left by an earlier process that had our pid (a restarted container)', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockFile(holder(process.pid)));
    const log = await openLog(path);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8')).token).not.toBe('feedface');
    await log.close();
  });

  it('respects a lock of another host until its heartbeat is older than staleAfterMs', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockFile(holder(1234, 'elsewhere.example')));
    const refused = await openFileEventLog(path, { lock: { staleAfterMs: 5_000 } });
    expect(refused._unsafeUnwrapErr()).toMatchObject({
      kind: 'locked',
      holder: { pid: 1234, host: 'elsewhere.example', since: '2026-01-02T03:04:05.000Z' },
    });
    expect(refused._unsafeUnwrapErr().message).toContain(
      'locked by pid 1234 on elsewhere.example since 2026-01-02T03:04:05.000Z',
    );
    await age(`${path}.lock`, 6_000);
    const log = await openLog(path, { lock: { staleAfterMs: 5_000 } });
    await log.close();
  });

  it('respects a live holder on this host until its heartbeat expires', async () => {
    const path = await freshLog();
    // The parent of this process is alive: its lock is respected while fresh.
    await writeFile(`${path}.lock`, lockFile(holder(process.ppid)));
    const refused = await openFileEventLog(path);
    expect(refused._unsafeUnwrapErr()).toMatchObject({ kind: 'locked' });
    // An expired heartbeat frees it even so (a stalled or reused pid).
    await age(`${path}.lock`, 31_000);
    const log = await openLog(path);
    await log.close();
  });

  it('refuses an unreadable lock file while it is fresh and takes it over once stale', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, 'not json');
    const refused = await openFileEventLog(path);
    const error = refused._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: 'locked', holder: undefined });
    expect(error.message).toContain('another writer (its lock file is unreadable)');
    await age(`${path}.lock`, 31_000);
    const log = await openLog(path);
    await log.close();
  });

  it('lets exactly one of many concurrent openers take a stale lock', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockFile(holder(deadPid())));
    const results = await Promise.all(Array.from({ length: 12 }, () => openFileEventLog(path)));
    const opened = results.filter((result) => result.isOk());
    expect(opened).toHaveLength(1);
    expect(
      results.filter((result) => result.isErr() && result.error.kind === 'locked'),
    ).toHaveLength(11);
    for (const result of opened) await result._unsafeUnwrap().close();
    expect(await readdir(join(path, '..'))).toEqual(['log.ndjson']);
  });

  it('breaks a break-lock left by a breaker that died', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockFile(holder(deadPid())));
    await writeFile(`${path}.lock.break`, lockFile(holder(deadPid())));
    const log = await openLog(path);
    await log.close();
  });

  it('fails appends with lock-lost once its lock is taken over, and leaves the new lock alone', async () => {
    const path = await freshLog();
    const log = await openLog(path);
    await log.append({ type: 'kept' });
    // Someone judged the lock stale and took it, as a breaker does: remove, then create anew.
    const intruder = lockFile(holder(1234, 'elsewhere.example'));
    await unlink(`${path}.lock`);
    await writeFile(`${path}.lock`, intruder);
    const result = await log.append({ type: 'refused' });
    expect(result._unsafeUnwrapErr()).toMatchObject({ kind: 'lock-lost', path });
    expect(result._unsafeUnwrapErr().message).toContain('no longer holds its lock');
    await log.close();
    expect(await readFile(`${path}.lock`, 'utf8')).toBe(intruder);
    const records = await readAll(readFileEventLog(path));
    expect(records.map((record) => (record.kind === 'entry' ? record.event : undefined))).toEqual([
      { type: 'kept' },
    ]);
  });

  it('fails appends with lock-lost when the lock file was deleted', async () => {
    const path = await freshLog();
    const log = await openLog(path);
    await unlink(`${path}.lock`);
    expect((await log.append({ type: 'x' }))._unsafeUnwrapErr().kind).toBe('lock-lost');
    await log.close();
    expect((await stat(path)).size).toBe(0);
  });

  it('refreshes its heartbeat while open', async () => {
    const path = await freshLog();
    const log = await openLog(path, { lock: { staleAfterMs: 60_000, heartbeatMs: 10 } });
    await age(`${path}.lock`, 50_000);
    const before = (await stat(`${path}.lock`)).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await stat(`${path}.lock`)).mtimeMs).toBeGreaterThan(before + 40_000);
    await log.close();
  });

  it('rejects lock timings that are not positive integers', async () => {
    const path = await freshLog();
    await expect(openFileEventLog(path, { lock: { staleAfterMs: 0 } })).rejects.toThrow(
      'lock.staleAfterMs must be a positive integer (got 0)',
    );
    await expect(openFileEventLog(path, { lock: { heartbeatMs: 1.5 } })).rejects.toThrow(
      'lock.heartbeatMs must be a positive integer (got 1.5)',
    );
    await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
