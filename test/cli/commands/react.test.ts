/**
 * `signfold react` and `signfold effects` as processes: a module with SQL
 * effects refused in one line, the reactor lock against a second runner
 * (also when the holder is paused, and not once it is killed), a clean stop
 * on SIGTERM, and SIGKILL at random moments with every effect delivered at
 * least once, repeats only with the same key and only for effects a killed
 * process had in flight.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_IN_FLIGHT } from '../../../src/core/reactors/in-flight.js';
import { count } from '../../reliability/fixtures/reliability-helpers.js';
import { eventually } from '../../support/eventually.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { callsByKey, startHttpSink } from '../../support/http-sink.js';
import { firedReminders } from '../../support/reminder-rules.js';
import { seededStoryLog, writeStoryLog } from '../../support/story-log.js';
import { forbiddenIn } from '../../support/terminal-safety.js';
import { CLI, ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');
const SQL_REACTORS = join(ROOT, 'test/fixtures/reactors/sql-reactors.mjs');
const HOUR = 3600 * 1000;

const sinkEnv = (url: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  SIGNFOLD_SINK_URL: url,
  ...extra,
});

const startReact = (args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess =>
  spawn(process.execPath, [CLI, 'react', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });

const exited = (child: ChildProcess): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const effectsJson = async (log: string) => {
  const listed = await runCli(['effects', log, '--json']);
  expect(listed.code).toBe(0);
  return JSON.parse(listed.stdout) as {
    reactors: { name: string; pending: number; parked: number; done: number }[];
    parked: {
      id: number;
      reactor: string;
      idempotencyKey: string;
      attempts: number;
      lastError: string;
      effect: unknown;
    }[];
  };
};

describe('signfold react', () => {
  it('refuses a module with SQL effects in one line, before touching any state', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeStoryLog(log, seededStoryLog(1, 3));
    const run = await runCli(['react', log, '--reactors', SQL_REACTORS]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'signfold: react: reactor "crm-note" has SQL effects, which need PostgreSQL (signfold pg work --reactors)\n',
    );
    expect((await runCli(['effects', log, '--json'])).stdout).toBe(
      '{"reactors":[],"parked":[],"timers":[]}\n',
    );
  });

  it('says what is wrong with a module that is not an array of reactors', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeStoryLog(log, seededStoryLog(1, 3));
    const missing = await runCli(['react', log, '--reactors', join(dir, 'nope.mjs')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^signfold: react: cannot load .*nope\.mjs: /);
    const usage = await runCli(['react', log]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('missing --reactors MODULE');
  });

  it('keeps the lock from a second runner, also while paused, but not once killed; effects retry goes through it', async () => {
    const sink = await startHttpSink();
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeStoryLog(log, seededStoryLog(2, 20));
    const holder = startReact([log, '--reactors', SINK_REACTORS], sinkEnv(sink.url));
    const holderExit = exited(holder);
    try {
      await eventually(
        async () => (await readFile(`${log}.reactors.lock`, 'utf8').catch(() => '')) !== '',
        'the lock',
      );
      const second = await runCli(
        ['react', log, '--reactors', SINK_REACTORS, '--drain'],
        ROOT,
        sinkEnv(sink.url),
      );
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`run by pid ${holder.pid}`);
      expect(second.stderr).toContain('stop it first');
      // effects retry goes through the running react, which answers: effect 1 is not parked.
      const retry = await runCli(['effects', 'retry', log, '1']);
      expect(retry.code).toBe(1);
      expect(retry.stderr).toMatch(/effect 1: the effect is \w+, not parked/);
      holder.kill('SIGSTOP');
      // A paused react claims nothing: the request is withdrawn after --wait, nothing changed.
      const unanswered = await runCli(['effects', 'retry', log, '1', '--wait', '1']);
      expect(unanswered.code).toBe(2);
      expect(unanswered.stderr).toContain('did not take the request within 1 s (is it stopped?)');
      expect((await readdir(dir)).filter((name) => name.includes('.reactors.request-'))).toEqual(
        [],
      );
      const paused = await runCli(
        ['react', log, '--reactors', SINK_REACTORS, '--drain'],
        ROOT,
        sinkEnv(sink.url),
      );
      expect(paused.code).toBe(2);
      expect(paused.stderr).toContain(`run by pid ${holder.pid}`);
      holder.kill('SIGKILL');
      await holderExit;
      const after = await runCli(
        ['react', log, '--reactors', SINK_REACTORS, '--drain'],
        ROOT,
        sinkEnv(sink.url),
      );
      expect(after.code).toBe(0);
    } finally {
      holder.kill('SIGKILL');
      await sink.close();
    }
  });

  it.each([
    ['ignores ctx.signal: they finish, their outcomes are journaled', '1'],
    ['honours ctx.signal: they stop, and stay due without counting as an attempt', '0'],
  ])('stops on SIGTERM while effects run, exit 0; an effect that %s', async (_, ignore) => {
    // No call is answered before the stop: however late the signal lands, every effect
    // started is still running then.
    const sink = await startHttpSink({ hold: () => true });
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeStoryLog(log, seededStoryLog(4, 30));
    const env = sinkEnv(sink.url, { SINK_IGNORE_SIGNAL: ignore });
    const child = startReact([log, '--reactors', SINK_REACTORS], env);
    const done = exited(child);
    try {
      await eventually(() => sink.calls.length > 0, 'a first call');
      const started = Date.now();
      child.kill('SIGTERM');
      // Those that ignore the signal get their answers now, and finish.
      if (ignore === '1') sink.release();
      const { code, stderr } = await done;
      expect(code).toBe(0);
      // Not held up to the 10 s grace (however slowly a busy machine ends the process).
      expect(Date.now() - started).toBeLessThan(9_500);
      sink.release();
      expect(stderr).toMatch(/^react: \d+ reactions, \d+ effects succeeded/);
      const report = await effectsJson(log);
      const doneCount = report.reactors.reduce((sum, row) => sum + row.done, 0);
      const interrupted = sink.calls.map((call) => call.key);
      expect(interrupted.length).toBeLessThanOrEqual(MAX_IN_FLIGHT);
      expect(doneCount).toBe(ignore === '1' ? interrupted.length : 0);
      expect(report.parked).toEqual([]);
      if (ignore === '0') {
        const before = sink.calls.length;
        const rerun = await runCli(
          ['react', log, '--reactors', SINK_REACTORS, '--drain'],
          ROOT,
          env,
        );
        expect(rerun.code).toBe(0);
        const again = sink.calls.slice(before).filter((call) => interrupted.includes(call.key));
        expect(again.map((call) => call.attempt)).toEqual(interrupted.map(() => 1));
      }
    } finally {
      child.kill('SIGKILL');
      await sink.close();
    }
  });

  it('survives SIGKILL at random moments: every effect at least once, repeats only for effects in flight at a kill', async () => {
    const sink = await startHttpSink({ delayMs: 25 });
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const events = seededStoryLog(11, 400);
    await writeStoryLog(log, events);
    const env = sinkEnv(sink.url);
    const killed = new Set<number>();
    try {
      for (let kill = 0; kill < count(20, 50); kill += 1) {
        const child = startReact([log, '--reactors', SINK_REACTORS, '--drain'], env);
        const done = exited(child);
        await sleep(150 + Math.floor(Math.random() * 500));
        if (child.exitCode === null) {
          child.kill('SIGKILL');
          killed.add(child.pid ?? 0);
        }
        await done;
      }
      const last = await runCli(['react', log, '--reactors', SINK_REACTORS, '--drain'], ROOT, env);
      expect(last.code).toBe(0);
      const expected = [
        ...events
          .filter((e) => e.event.type === 'sign-request-completed')
          .map((e) => `documents:${e.position}:0`),
        ...firedReminders(events, 72 * HOUR).map((e) => `reminders:${e.position}:0`),
      ].sort();
      const byKey = callsByKey(sink.calls);
      expect([...byKey.keys()].sort()).toEqual(expected);
      expect(killed.size).toBeGreaterThan(0);
      const repeatsPerKilledPid = new Map<number, number>();
      for (const calls of byKey.values()) {
        // Every call but the last was cut short by a kill of the process that made it.
        for (const call of calls.slice(0, -1)) {
          expect(killed.has(call.pid)).toBe(true);
          repeatsPerKilledPid.set(call.pid, (repeatsPerKilledPid.get(call.pid) ?? 0) + 1);
        }
      }
      for (const repeats of repeatsPerKilledPid.values())
        expect(repeats).toBeLessThanOrEqual(MAX_IN_FLIGHT);
      const report = await effectsJson(log);
      expect(report.parked).toEqual([]);
      expect(report.reactors.reduce((sum, row) => sum + row.done + row.pending, 0)).toBe(
        expected.length,
      );
      expect(report.reactors.every((row) => row.pending === 0)).toBe(true);
    } finally {
      await sink.close();
    }
  });

  it('runs the hostile corpus without a crash, and reacts to no quarantined line', async () => {
    const sink = await startHttpSink();
    const dir = await tempDir();
    const log = join(dir, 'hostile.ndjson');
    await copyFile(HOSTILE_CORPUS, log);
    try {
      const run = await runCli(
        ['react', log, '--reactors', SINK_REACTORS, '--drain'],
        ROOT,
        sinkEnv(sink.url),
      );
      expect(run.code).toBe(0);
      // Only the clean lifecycle applies: request 5001 completes once (its redelivery is a
      // duplicate). Participant 3 signs exactly 72 h after being sent: a timer due at or before
      // an event's receivedAt is released before that event is reacted to, so the reminder fires.
      expect(sink.calls.map((call) => [call.key, call.body])).toEqual([
        ['documents:34:0', { type: 'fetch-document', signRequestId: 5001 }],
        [
          'reminders:3:0',
          {
            type: 'remind',
            key: 'participant-5001-3',
            after: 72 * HOUR,
            participantId: 3,
            signRequestId: 5001,
          },
        ],
      ]);
      expect(forbiddenIn(run.stderr)).toEqual([]);
    } finally {
      await sink.close();
    }
  });
});

describe('signfold effects', () => {
  it('lists, retries and skips parked effects, with the --json shape of the docs', async () => {
    let failing = true;
    const sink = await startHttpSink({
      fails: (call) => failing && call.key.startsWith('documents:'),
    });
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const events = seededStoryLog(6, 12);
    await writeStoryLog(log, events);
    const env = sinkEnv(sink.url, {
      SINK_MAX_ATTEMPTS: '3',
      SINK_BASE_DELAY_MS: '5',
      SINK_MAX_DELAY_MS: '10',
    });
    try {
      expect(
        (await runCli(['react', log, '--reactors', SINK_REACTORS, '--drain'], ROOT, env)).code,
      ).toBe(0);
      const report = await effectsJson(log);
      const completions = events.filter((e) => e.event.type === 'sign-request-completed');
      expect(report.parked.length).toBe(completions.length);
      expect(report.parked.length).toBeGreaterThanOrEqual(2);
      const [first, second] = report.parked;
      expect(Object.keys(first ?? {})).toEqual([
        'id',
        'reactor',
        'idempotencyKey',
        'attempts',
        'lastError',
        'effect',
      ]);
      expect(first).toMatchObject({
        reactor: 'documents',
        attempts: 3,
        lastError: 'sink answered 500',
        effect: { type: 'fetch-document', signRequestId: completions[0]?.event.signRequestId },
      });
      expect(first?.idempotencyKey).toMatch(/^documents:\d+:0$/);
      const human = await runCli(['effects', log]);
      expect(human.stdout).toContain('reactor');
      expect(human.stdout).toContain(first?.idempotencyKey);
      failing = false;
      const retried = await runCli(['effects', 'retry', log, String(first?.id), '--json']);
      expect(retried.code).toBe(0);
      expect(JSON.parse(retried.stdout)).toEqual({ changed: [first?.id], refused: [] });
      const skipped = await runCli(['effects', 'skip', log, String(second?.id), '12345']);
      expect(skipped.code).toBe(1);
      expect(skipped.stderr).toBe('signfold: effects skip: effect 12345: no such effect\n');
      const again = await runCli(['effects', 'retry', log, String(second?.id)]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('the effect is cancelled, not parked');
      const before = sink.calls.length;
      expect(
        (await runCli(['react', log, '--reactors', SINK_REACTORS, '--drain'], ROOT, env)).code,
      ).toBe(0);
      expect(sink.calls.slice(before).map((call) => [call.key, call.attempt])).toEqual([
        [first?.idempotencyKey, 1],
      ]);
      const after = await effectsJson(log);
      expect(after.parked.map((p) => p.id)).toEqual(report.parked.slice(2).map((p) => p.id));
    } finally {
      await sink.close();
    }
  });

  it('prints the empty report for a log no reactor has run on, and refuses a bad id', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeStoryLog(log, seededStoryLog(1, 2));
    const listed = await runCli(['effects', log, '--json']);
    expect(listed).toMatchObject({ code: 0, stdout: '{"reactors":[],"parked":[],"timers":[]}\n' });
    const bad = await runCli(['effects', 'retry', log, '0x1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("ID must be a positive integer (got '0x1')");
  });
});
