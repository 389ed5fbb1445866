/**
 * The file engine's lag (docs/cli.md#metrics): the records appended past the
 * size the runner's last look started from, and since when they may have
 * waited (that look's start); 0 and 0 when nothing is unread. The runner is a
 * stand-in here: a runner that falls behind is what a process test cannot
 * make happen on demand.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileGaugeReader } from '../../../src/cli/metrics/file-gauges.js';
import type { FileReactorRunner } from '../../../src/store/reactors/file-reactor-runner.js';
import { removeTempDirs, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

const runnerAt = (progress: { lookedAtBytes: number; lookedAt: number }): FileReactorRunner => ({
  run: () => {
    throw new Error('not run here');
  },
  notify: () => undefined,
  report: () => ({
    reactors: [{ name: 'mail', pending: 3, parked: 1, done: 0 }],
    parked: [],
    timers: [
      { id: 2, reactor: 'mail', key: null, dueAt: '2030-01-01T00:01:00.000Z', idempotencyKey: 'b' },
      { id: 1, reactor: 'mail', key: null, dueAt: '2030-01-01T00:00:00.000Z', idempotencyKey: 'a' },
    ],
  }),
  progress: () => ({
    ...progress,
    stats: { applied: 2, noOps: 0, conflicts: 0, invalid: 0, alreadyApplied: 0 },
    running: new Map([['mail', 1]]),
  }),
});

describe('the file engine lag', () => {
  it('counts the complete lines past the last look, and their wait since that look began', async () => {
    const log = join(await tempDir(), 'events.ndjson');
    await writeFile(log, '{"a":1}\n{"a":2}\n');
    const progress = { lookedAtBytes: 16, lookedAt: 1_000_000 };
    const read = fileGaugeReader(log, runnerAt(progress), () => 1_004_500);
    expect((await read()).lag).toEqual([{ events: 0, seconds: 0 }]);
    await appendFile(log, '{"a":3}\n{"a":4}\n{"torn');
    expect((await read()).lag).toEqual([{ events: 2, seconds: 4.5 }]);
    await appendFile(log, '":5}\n');
    expect((await read()).lag).toEqual([{ events: 3, seconds: 4.5 }]);
    // The runner read them: counted again from its new size.
    progress.lookedAtBytes = 45;
    expect((await read()).lag).toEqual([{ events: 0, seconds: 0 }]);
  });

  it('counts a running effect once, as running, and reports the earliest timer', async () => {
    const log = join(await tempDir(), 'events.ndjson');
    await writeFile(log, '');
    const read = fileGaugeReader(log, runnerAt({ lookedAtBytes: 0, lookedAt: 0 }));
    expect((await read()).effects).toEqual([
      {
        reactor: 'mail',
        pending: 2,
        parked: 1,
        running: 1,
        nextTimerMs: Date.parse('2030-01-01T00:00:00.000Z'),
      },
    ]);
  });
});
