/**
 * `signfold unlock LOG [--force]` (compiled build): removes a writer lock
 * whose holder signfold cannot see (another host or pid namespace, or a
 * lock file it did not write), keeps that of a holder running on this host
 * unless forced, and prints nothing from the lock file unescaped.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockOf, startTimeOf } from '../../store/fixtures/lock-content.js';
import { eventually } from '../../support/eventually.js';
import { removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

const logIn = async (): Promise<string> => {
  const path = join(await tempDir(), 'events.ndjson');
  await writeFile(path, '{"type":"x"}\n');
  return path;
};

const OTHER_HOST = { host: 'elsewhere.example', bootId: 'another-boot', pidNamespace: 'pid:[1]' };

describe('signfold unlock', () => {
  it('says so when the log is not locked', async () => {
    const log = await logIn();
    expect(await runCli(['unlock', log])).toEqual({
      code: 0,
      stdout: `${log}: not locked (no ${log}.lock)\n`,
      stderr: '',
    });
  });

  it('removes the lock of another host, with its scratch and .break leftovers; the log is untouched', async () => {
    const log = await logIn();
    await writeFile(`${log}.lock`, lockOf(1234, OTHER_HOST));
    await writeFile(`${log}.lock.break`, lockOf(99, OTHER_HOST));
    await writeFile(`${log}.lock.99.${'cd'.repeat(12)}`, '');
    const run = await runCli(['unlock', log]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^${log.replace(/[.]/g, '\\.')}: removed .*\\.lock of pid 1234 on elsewhere\\.example since 2026-01-02T03:04:05\\.000Z, heartbeat \\d+\\.\\d s ago \\(its holder was on another host or in another pid namespace\\)\\n$`,
      ),
    );
    expect(await readdir(dirname(log))).toEqual(['events.ndjson']);
    expect(await readFile(log, 'utf8')).toBe('{"type":"x"}\n');
  });

  it('keeps the lock of a writer running on this host (exit 1) unless --force', async () => {
    const log = await logIn();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      const pid = holder.pid ?? 0;
      await eventually(() => startTimeOf(pid) !== '1', 'the holder to show in /proc');
      await writeFile(`${log}.lock`, lockOf(pid));
      const kept = await runCli(['unlock', log]);
      expect(kept.code).toBe(1);
      expect(kept.stdout).toBe('');
      expect(kept.stderr).toBe(
        `signfold: ${log}.lock is held by pid ${pid}, which still runs on this host (heartbeat ` +
          `${kept.stderr.match(/heartbeat (\d+\.\d) s/)?.[1]} s ago): kept; stop that writer instead, ` +
          `or if pid ${pid} is not a signfold writer, run 'signfold unlock --force ${log}'\n`,
      );
      expect(await readFile(`${log}.lock`, 'utf8')).toBe(lockOf(pid));
      const forced = await runCli(['unlock', '--force', log]);
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain('its holder still runs on this host: removed by --force');
      expect(await readdir(dirname(log))).toEqual(['events.ndjson']);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('removes an unreadable lock file, and prints no control character from a lock file', async () => {
    const log = await logIn();
    await writeFile(`${log}.lock`, 'garbage');
    expect((await runCli(['unlock', log])).stdout).toContain('(it was not written by signfold)');
    await writeFile(
      `${log}.lock`,
      lockOf(7, { ...OTHER_HOST, host: 'evil\u001b[2J\u009b\u202ehost' }),
    );
    const run = await runCli(['unlock', log]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('on evil\\u001b[2J\\u009b\\u202ehost since');
    // Only the final newline is a control character.
    expect(run.stdout.slice(0, -1)).not.toMatch(/[\p{Cc}\u202e]/u);
  });

  it('is listed in --help, and its help states the risk', async () => {
    expect((await runCli(['--help'])).stdout).toContain('  unlock LOG ');
    const help = await runCli(['unlock', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: signfold unlock LOG \[--force\]/);
    expect(help.stdout).toContain('RISK: if that writer still runs');
    expect(await runCli(['unlock'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('missing LOG'),
    });
  });
});
