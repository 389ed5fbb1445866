/**
 * The run's watchdog, with real processes: a stand-in for vitest starts it and a marked process,
 * and is then killed with SIGKILL (no teardown runs) or ends well.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { markedProcesses } from './marked-processes.js';

const watchdogModule = new URL('./run-watchdog.js', import.meta.url).href;
const MARK = 'SIGNFOLD_WATCHDOG_TEST';

const started: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A stand-in for a test run: starts the watchdog of `MARK=value`, registers `registered`, starts a
 * marked `sleep` in `sleepCwd`, prints the sleep's pid, and ends well when told `end` on stdin.
 */
const fakeRun = (value: string, registered: string, sleepCwd: string) => {
  const source = `
    import { spawn } from 'node:child_process';
    import { startWatchdog } from ${JSON.stringify(watchdogModule)};
    const watchdog = startWatchdog(${JSON.stringify(MARK)}, ${JSON.stringify(value)});
    watchdog.removeIfRunDies(${JSON.stringify(registered)});
    const sleep = spawn('sleep', ['300'], {
      cwd: ${JSON.stringify(sleepCwd)},
      env: { ...process.env, ${MARK}: ${JSON.stringify(value)} },
      detached: true,
      stdio: 'ignore',
    });
    sleep.unref();
    console.log(String(sleep.pid));
    process.stdin.on('data', () => { watchdog.done(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    child,
    stderr: () => stderr,
    sleepPid: async (): Promise<number> => {
      await eventually(() => /^\d+\n/.test(stdout), 'the stand-in run to print its sleep');
      return Number(stdout.trim());
    },
  };
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A directory laid out like a throwaway PostgreSQL server's: `<tmpdir>/signfold-pg-…/data`. */
const serverLikeDir = (): { dir: string; data: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'signfold-pg-watchdog-'));
  dirs.push(dir);
  const data = join(dir, 'data');
  mkdirSync(data);
  return { dir, data };
};

const registeredDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'signfold-watchdog-registered-'));
  dirs.push(dir);
  return dir;
};

describe('the run watchdog', () => {
  it('stops the run’s processes and removes its directories when the run is killed', async () => {
    const value = `killed-${process.pid}-${Date.now()}`;
    const server = serverLikeDir();
    const registered = registeredDir();
    const run = fakeRun(value, registered, server.data);
    const pid = await run.sleepPid();
    expect(markedProcesses(MARK, value).map((p) => p.pid)).toEqual([pid]);

    run.child.kill('SIGKILL');

    await eventually(() => !alive(pid), 'the marked sleep to be stopped');
    await eventually(() => !existsSync(server.dir), 'the server-like directory to be removed');
    expect(existsSync(registered)).toBe(false);
    // Told on the run's standard error, which the watchdog shares.
    await eventually(
      () => run.stderr().includes('ended without its teardown; stopped 1 process(es)'),
      'the watchdog to say what it stopped',
    );
    expect(run.stderr()).toContain(`pid ${pid}: sleep 300`);
  });

  it('does nothing when the run ends well, and exits', async () => {
    const value = `done-${process.pid}-${Date.now()}`;
    const server = serverLikeDir();
    const registered = registeredDir();
    const run = fakeRun(value, registered, server.data);
    const pid = await run.sleepPid();

    run.child.stdin?.write('end\n');
    await new Promise((resolve) => run.child.once('exit', resolve));

    // The watchdog has nothing to do; it must not have touched the sleep or the directories.
    // Its own exit is checked by this file's process fixture (it carries the file's mark).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(alive(pid)).toBe(true);
    expect(existsSync(server.dir)).toBe(true);
    expect(existsSync(registered)).toBe(true);
    expect(run.stderr()).toBe('');
    process.kill(pid, 'SIGKILL');
  });
});
