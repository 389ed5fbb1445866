/**
 * The file log's writer lock within one process: refusal, release, which
 * locks are broken (dead pid, reused pid, a dead twin with our pid, an
 * earlier boot) and which never are (a live holder, another host or pid
 * namespace, an unreadable file, whatever their heartbeat's age), unlock,
 * racing openers, leftover scratch files, an append after a removed lock. Cross-process behaviour is in
 * writer-lock-processes.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { unlockWriterLock } from '../../src/store/writer-unlock.js';
import { eventually } from '../support/eventually.js';
import { lockOf, startTimeOf } from './fixtures/lock-content.js';
import { openLog, readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

/** A pid no process has any more: that of a child that already exited. */
const deadPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not start a child process');
  return child.pid;
};

/** Sets a file's modification time `ms` into the past; resolves to that time (ms epoch). */
const age = async (path: string, ms: number): Promise<number> => {
  const then = new Date(Date.now() - ms);
  await utimes(path, then, then);
  return then.getTime();
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

  it('takes over a lock whose holder died in this pid namespace, at once', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockOf(deadPid()));
    const log = await openLog(path);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8'))).toMatchObject({
      pid: process.pid,
      pidNamespace: expect.stringMatching(/^pid:\[\d+\]$/),
      bootId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      startTime: expect.stringMatching(/^\d+$/),
    });
    await log.close();
  });

  it('takes over a lock whose pid now belongs to another process (pid reused: other start time)', async () => {
    const path = await freshLog();
    // The parent of this process runs: with its own start time, its lock is kept...
    await writeFile(`${path}.lock`, lockOf(process.ppid));
    const kept = (await openFileEventLog(path))._unsafeUnwrapErr();
    expect(kept).toMatchObject({ kind: 'locked', holder: { pid: process.ppid } });
    expect(kept.message).toContain(`pid ${process.ppid} still runs on this host`);
    // ...with another start time, the lock was another process's that had that pid: taken over.
    await writeFile(`${path}.lock`, lockOf(process.ppid, { startTime: '1' }));
    const log = await openLog(path);
    const taken = JSON.parse(await readFile(`${path}.lock`, 'utf8'));
    expect(taken).toMatchObject({ pid: process.pid, startTime: startTimeOf(process.pid) });
    expect(taken.token).not.toBe('feedface');
    await log.close();
    expect(await readdir(join(path, '..'))).toEqual(['log.ndjson']);
  });

  it('takes over a lock left by an earlier process that had our pid', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockOf(process.pid, { startTime: '1' }));
    const log = await openLog(path);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8')).token).not.toBe('feedface');
    await log.close();
  });

  it('never breaks the lock of a live holder in this pid namespace, however old its heartbeat', async () => {
    const path = await freshLog();
    // The parent of this process is alive, with the start time recorded.
    await writeFile(`${path}.lock`, lockOf(process.ppid));
    await age(`${path}.lock`, 86_400_000);
    const error = (
      await openFileEventLog(path, { lock: { staleAfterMs: 300 } })
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: 'locked', holder: { pid: process.ppid } });
    if (error.kind !== 'locked') throw new Error('not a locked error');
    expect(error.heartbeatAgeMs).toBeGreaterThan(86_000_000);
    expect(error.message).toContain(`since 2026-01-02T03:04:05.000Z, heartbeat 86400.`);
    expect(error.message).toContain(`pid ${process.ppid} still runs on this host`);
    expect(error.message).toContain(
      `If pid ${process.ppid} is not a signfold writer, remove the lock with 'signfold unlock --force ${path}'`,
    );
    // unlock keeps it too, unless forced.
    expect((await unlockWriterLock(path))._unsafeUnwrap()).toMatchObject({ kind: 'running' });
    expect((await unlockWriterLock(path, { force: true }))._unsafeUnwrap()).toMatchObject({
      kind: 'removed',
      verdict: { kind: 'running' },
    });
    const log = await openLog(path);
    await log.close();
  });

  it('never breaks a lock of another host, however old its heartbeat; unlock removes it', async () => {
    const path = await freshLog();
    const other = { host: 'elsewhere.example', bootId: 'another-boot', pidNamespace: 'pid:[1]' };
    await writeFile(`${path}.lock`, lockOf(1234, other));
    await age(`${path}.lock`, 3_600_000);
    const refused = await openFileEventLog(path, { lock: { staleAfterMs: 5_000 } });
    const error = refused._unsafeUnwrapErr();
    expect(error).toMatchObject({
      kind: 'locked',
      holder: { pid: 1234, host: 'elsewhere.example', since: '2026-01-02T03:04:05.000Z' },
    });
    expect(error.message).toContain(
      'locked by pid 1234 on elsewhere.example since 2026-01-02T03:04:05.000Z, heartbeat 3600.',
    );
    expect(error.message).toContain('on another host or in another pid namespace');
    expect(error.message).toContain('no heartbeat for over lock.staleAfterMs, 5.0 s');
    expect(error.message).toContain(`'signfold unlock ${path}'`);
    expect((await unlockWriterLock(path))._unsafeUnwrap()).toMatchObject({
      kind: 'removed',
      holder: { pid: 1234, host: 'elsewhere.example' },
      verdict: { kind: 'elsewhere' },
    });
    const log = await openLog(path);
    await log.close();
  });

  it('treats a lock of another pid namespace on this kernel (another container) as from elsewhere', async () => {
    const path = await freshLog();
    // Same host name and kernel, and a pid that runs here (even ours): still not this namespace's.
    for (const pid of [1, process.pid]) {
      await writeFile(`${path}.lock`, lockOf(pid, { pidNamespace: 'pid:[1]', startTime: '7' }));
      const error = (await openFileEventLog(path))._unsafeUnwrapErr();
      expect(error.message).toContain('in another pid namespace (another container)');
    }
  });

  it('takes over a lock of this host name left before this boot, but not one refreshed since', async () => {
    const path = await freshLog();
    const uptimeMs = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
    await writeFile(`${path}.lock`, lockOf(4242, { bootId: 'an-earlier-boot' }));
    const refused = await openFileEventLog(path);
    expect(refused._unsafeUnwrapErr().kind).toBe('locked');
    await age(`${path}.lock`, uptimeMs + 60_000);
    const log = await openLog(path);
    await log.close();
  });

  it('treats a lock without a process identity (an older signfold) as from elsewhere', async () => {
    const path = await freshLog();
    const legacy = {
      pid: deadPid(),
      host: hostname(),
      since: '2026-01-02T03:04:05.000Z',
      token: 'f',
    };
    await writeFile(`${path}.lock`, `${JSON.stringify(legacy)}\n`);
    expect((await openFileEventLog(path))._unsafeUnwrapErr().kind).toBe('locked');
  });

  it('never breaks an unreadable lock file, however old; unlock removes it', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, 'not json');
    await age(`${path}.lock`, 3_600_000);
    const error = (await openFileEventLog(path))._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: 'locked', holder: undefined });
    expect(error.message).toContain(
      'another writer (its lock file is unreadable), heartbeat 3600.',
    );
    expect(error.message).toContain(`not written by signfold`);
    expect((await unlockWriterLock(path))._unsafeUnwrap()).toMatchObject({
      kind: 'removed',
      verdict: { kind: 'unreadable' },
    });
    const log = await openLog(path);
    await log.close();
  });

  it('lets exactly one of many concurrent openers take a stale lock', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockOf(deadPid()));
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
    await writeFile(`${path}.lock`, lockOf(deadPid()));
    await writeFile(`${path}.lock.break`, lockOf(deadPid()));
    // The stale lock can only be taken under the break-lock: opening proves the dead one was broken.
    const log = await openLog(path);
    expect(JSON.parse(await readFile(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    expect((await readdir(join(path, '..'))).sort()).toEqual(['log.ndjson', 'log.ndjson.lock']);
    await log.close();
    expect(await readdir(join(path, '..'))).toEqual(['log.ndjson']);
  });

  it('waits for a break-lock whose holder runs, and then refuses rather than break it', async () => {
    const path = await freshLog();
    await writeFile(`${path}.lock`, lockOf(deadPid()));
    await writeFile(`${path}.lock.break`, lockOf(process.ppid));
    await age(`${path}.lock.break`, 3_600_000);
    const error = (await openFileEventLog(path))._unsafeUnwrapErr();
    expect(error.message).toContain('other writers kept taking it over meanwhile; try again');
    expect(await readFile(`${path}.lock.break`, 'utf8')).toBe(lockOf(process.ppid));
  });

  it('removes scratch files left by openers killed mid-way, keeping those of live openers', async () => {
    const path = await freshLog();
    const dead = deadPid();
    const token = 'ab'.repeat(12);
    const leftovers = [
      `log.ndjson.lock.${dead}.${token}`,
      `log.ndjson.lock.break.${dead}.${token}`,
    ];
    await writeFile(join(path, '..', leftovers[0] ?? ''), lockOf(dead));
    await writeFile(join(path, '..', leftovers[1] ?? ''), '');
    // A live process's fresh one may be in use; our own pid's, not in use by us, is a dead twin's.
    const live = `log.ndjson.lock.${process.ppid}.${token}`;
    await writeFile(join(path, '..', live), '');
    await writeFile(join(path, '..', `log.ndjson.lock.${process.pid}.${token}`), '');
    const log = await openLog(path);
    expect((await readdir(join(path, '..'))).sort()).toEqual(
      ['log.ndjson', 'log.ndjson.lock', live].sort(),
    );
    await log.close();
  });

  it('fails appends with lock-lost once its lock was removed and replaced, and leaves the new lock alone', async () => {
    const path = await freshLog();
    const log = await openLog(path);
    await log.append({ type: 'kept' });
    // Someone removed the lock (signfold unlock) and another writer took it.
    const intruder = lockOf(1234, { host: 'elsewhere.example', bootId: 'another-boot' });
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
    const agedTo = await age(`${path}.lock`, 50_000);
    // Only a beat of the holder can move the modification time back near now; however late
    // it comes on a busy machine, it comes. (A beat may even land between the aging and a
    // first look: the aged time is known, so that counts too.)
    await eventually(
      async () => (await stat(`${path}.lock`)).mtimeMs > agedTo + 40_000,
      'a heartbeat after the aging',
    );
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
