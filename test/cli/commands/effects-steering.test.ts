/**
 * `signfold effects` steering on a file log: timers listed with their due
 * time and key; retry and skip by filter, with --dry-run and a count; and
 * retry while `react` runs, through the runner (a request file it claims,
 * applies, journals and answers), which also survives hostile request files.
 */
import type { ChildProcess } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { startHttpSink } from '../../support/http-sink.js';
import { seededStoryLog, writeStoryLog } from '../../support/story-log.js';
import { forbiddenIn } from '../../support/terminal-safety.js';
import { ROOT, removeTempDirs, runCli, startCli, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');

interface Report {
  reactors: { name: string; pending: number; parked: number; done: number }[];
  parked: { id: number; reactor: string; lastError: string; idempotencyKey: string }[];
  timers: { id: number; reactor: string; key: string | null; dueAt: string }[];
}

const report = async (log: string): Promise<Report> => {
  const run = await runCli(['effects', log, '--json']);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Report;
};

/** A log whose `documents` effects are parked and whose `reminders` are timers still pending. */
const parkedLog = async (sinkUrl: string) => {
  const dir = await tempDir();
  const log = join(dir, 'events.ndjson');
  await writeStoryLog(log, seededStoryLog(5, 40));
  // Reminders three years after sending: due after the wall clock, so still timers at the end.
  const env = {
    ...process.env,
    SIGNFOLD_SINK_URL: sinkUrl,
    SINK_MAX_ATTEMPTS: '1',
    SINK_REMIND_AFTER_MS: String(3 * 365 * 24 * 3600 * 1000),
  };
  const run = await runCli(['react', log, '--reactors', SINK_REACTORS, '--drain'], ROOT, env);
  expect(run.code).toBe(0);
  return { dir, log, env };
};

/** An answer the runner wrote (not its temporary file, which a rename is about to move in place). */
const ANSWER_FILE = /\.reactors\.answer-.*\.json$/;

describe('effects steering on a file log', () => {
  it('lists timers with due time and key; retries and skips by filter, dry run first', async () => {
    const sink = await startHttpSink({ fails: () => true });
    try {
      const { log } = await parkedLog(sink.url);
      const before = await report(log);
      const parkedOf = (r: Report, name: string) => r.parked.filter((p) => p.reactor === name);
      expect(parkedOf(before, 'documents').length).toBeGreaterThan(2);
      expect(before.timers.length).toBeGreaterThan(2);
      for (const timer of before.timers) {
        expect(timer.reactor).toBe('reminders');
        expect(timer.key).toMatch(/^participant-\d+-\d+$/);
        expect(new Date(timer.dueAt).toISOString()).toBe(timer.dueAt);
      }
      const dues = before.timers.map((t) => t.dueAt);
      expect([...dues].sort()).toEqual(dues);
      const text = await runCli(['effects', log]);
      const first = before.timers[0];
      expect(text.stdout).toContain('timers:');
      expect(text.stdout).toMatch(
        new RegExp(`^\\s*${first?.id}\\s+reminders\\s+${first?.dueAt}\\s+${first?.key}$`, 'm'),
      );

      const documents = parkedOf(before, 'documents').map((p) => p.id);
      const dry = await runCli(['effects', 'retry', log, '--reactor', 'documents', '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout.trimEnd().split('\n')).toEqual([
        ...documents.map((id) => `effect ${id}: would run again`),
        `${documents.length} effects would run again (dry run: nothing changed)`,
      ]);
      expect(await report(log)).toEqual(before);

      // Filters that select nothing change nothing: another reactor, another error.
      for (const filter of [
        ['--reactor', 'reminders'],
        ['--error', 'no such error'],
      ]) {
        const none = await runCli(['effects', 'skip', log, ...filter]);
        expect(none.code).toBe(0);
        expect(none.stdout).toBe('0 effects skipped\n');
      }
      const skipped = await runCli([
        'effects',
        'skip',
        log,
        '--reactor',
        'documents',
        '--error',
        'sink answered 500',
        '--json',
      ]);
      expect(skipped.code).toBe(0);
      expect(JSON.parse(skipped.stdout)).toEqual({ changed: documents, refused: [] });
      const after = await report(log);
      expect(after.parked).toEqual([]);
      expect(after.timers).toEqual(before.timers);
    } finally {
      await sink.close();
    }
  });

  it.each([
    [['retry', 'LOG'], 'missing ID (or a filter: --reactor, --error, --parked, --all)'],
    [['retry', 'LOG', '1', '--parked'], 'give IDs or a filter'],
    [['LOG', '--parked'], '--parked goes with retry or skip'],
    [['LOG', '--reactor', 'x'], '--reactor goes with retry or skip'],
    [['skip', 'LOG', '--error', ''], '--error needs a text'],
    [['retry', 'LOG', '--all', '--wait', '0'], '--wait must be at least 1 second'],
  ])('refuses effects %j (exit 2)', async (words, message) => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeFile(log, '');
    const run = await runCli(['effects', ...words.map((w) => (w === 'LOG' ? log : w))]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('retries every parked effect while react runs, through the runner, which survives hostile requests', async () => {
    let failing = true;
    const sink = await startHttpSink({ fails: () => failing });
    let react: ChildProcess | undefined;
    try {
      const { dir, log, env } = await parkedLog(sink.url);
      const parked = (await report(log)).parked;
      expect(parked.length).toBeGreaterThan(4);
      failing = false;
      const running = startCli(['react', log, '--reactors', SINK_REACTORS], env);
      react = running.child;
      const exited = running.closed.then(({ code }) => code);
      await eventually(
        async () => (await readFile(`${log}.reactors.lock`, 'utf8').catch(() => '')) !== '',
        'react to hold the lock',
      );

      // Hostile request files: each line of the corpus, and cut and mangled ones.
      const corpus = (await readFile(HOSTILE_CORPUS, 'utf8')).split('\n').slice(0, 40);
      const bodies = [
        ...corpus,
        ...corpus.map((line) => line.slice(0, Math.floor(line.length / 2))),
        JSON.stringify({ signfold: 'signfold-effects-edit', edit: 'retry', ids: [-1] }),
        JSON.stringify({ signfold: 'signfold-effects-edit', edit: 'drop', ids: [1] }),
        JSON.stringify({ signfold: 'signfold-effects-edit', edit: 'skip', filter: { reactor: 7 } }),
      ];
      for (const [i, body] of bodies.entries()) {
        const id = i.toString(16).padStart(16, '0');
        await writeFile(`${log}.reactors.request-${id}.json`, body);
      }
      await eventually(
        async () =>
          (await readdir(dir)).filter((name) => ANSWER_FILE.test(name)).length === bodies.length,
        'an answer to every hostile request',
      );
      for (const name of (await readdir(dir)).filter((n) => ANSWER_FILE.test(n))) {
        const answer = JSON.parse(await readFile(join(dir, name), 'utf8')) as { error?: string };
        expect(answer.error).toEqual(expect.any(String));
      }
      expect((await report(log)).parked.map((p) => p.id)).toEqual(parked.map((p) => p.id));

      const retried = await runCli(['effects', 'retry', log, '--parked']);
      expect(retried.code).toBe(0);
      expect(retried.stdout.trimEnd().split('\n').at(-1)).toBe(
        `${parked.length} effects will run again`,
      );
      // Not parked any more means pending again, not yet run: wait for the sink to see them.
      const keys = new Set(parked.map((p) => p.idempotencyKey));
      const succeededCalls = () => sink.calls.filter((c) => keys.has(c.key) && !c.failed);
      await eventually(
        async () => new Set(succeededCalls().map((c) => c.key)).size === keys.size,
        'the retried effects to succeed',
      );
      expect((await report(log)).parked).toEqual([]);
      const succeeded = succeededCalls();
      expect(new Set(succeeded.map((c) => c.key))).toEqual(keys);
      // A fresh round of attempts: each ran again as attempt 1.
      expect(succeeded.every((c) => c.attempt === 1)).toBe(true);
      expect(react.exitCode).toBe(null);
      react.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(forbiddenIn(running.stderr())).toEqual([]);
    } finally {
      react?.kill('SIGKILL');
      await sink.close();
    }
  });
});
