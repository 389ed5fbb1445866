/**
 * `react --metrics-port` as a process (issue 34, "Metrics everywhere"): the
 * scrape follows the run. Effects whose sink refuses them are attempted and
 * parked (`signfold_effects{state="parked"}` and the failed attempts rise);
 * retried once the sink accepts them, they succeed and the parked gauge falls
 * to 0; timers not yet due are pending with their next due time in the
 * future; records appended while it runs are counted in
 * `signfold_events_total` and the lag returns to 0. SIGTERM ends the process
 * and its metrics server. Every wait is bounded.
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startHttpSink } from '../../support/http-sink.js';
import { startMetricsProcess } from '../../support/metrics-process.js';
import { type Sample, scrape, total } from '../../support/prometheus-text.js';
import { envelopeLine, seededStoryLog, writeStoryLog } from '../../support/story-log.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');
const DAY = 24 * 3600 * 1000;

const value = (samples: readonly Sample[], name: string, labels: Record<string, string>) =>
  total(samples, name, labels);

describe('react --metrics-port', () => {
  it('effects pending, parked and attempts move as the run does; events and lag follow the log', async () => {
    let failing = true;
    const sink = await startHttpSink({
      fails: (call) => failing && call.key.startsWith('documents:'),
    });
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    // Recent events and reminders a year out: their timers are pending, not due.
    const events = seededStoryLog(7, 14, { start: Date.now() - 40 * DAY });
    const first = events.slice(0, -20);
    const later = events.slice(-20);
    await writeStoryLog(log, first);
    const completions = first.filter((e) => e.event.type === 'sign-request-completed').length;
    expect(completions).toBeGreaterThanOrEqual(2);
    const react = await startMetricsProcess(
      ['react', log, '--reactors', SINK_REACTORS, '--metrics-port', '0'],
      {
        ...process.env,
        SIGNFOLD_SINK_URL: sink.url,
        SINK_MAX_ATTEMPTS: '3',
        SINK_BASE_DELAY_MS: '5',
        SINK_MAX_DELAY_MS: '10',
        SINK_REMIND_AFTER_MS: String(365 * DAY),
      },
    );
    try {
      expect(react.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      // Every document effect failed three times and is parked.
      await eventually(async () => {
        const { samples } = await scrape(react.url);
        return (
          value(samples, 'signfold_effects', { reactor: 'documents', state: 'parked' }) ===
          completions
        );
      }, 'the document effects to be parked');
      let { samples } = await scrape(react.url);
      expect(
        value(samples, 'signfold_effect_attempts_total', {
          reactor: 'documents',
          result: 'failed',
        }),
      ).toBe(3 * completions);
      expect(
        value(samples, 'signfold_effect_attempts_total', {
          reactor: 'documents',
          result: 'succeeded',
        }),
      ).toBe(0);
      expect(value(samples, 'signfold_events_total', {})).toBe(first.length);
      expect(value(samples, 'signfold_projection_lag_events', {})).toBe(0);
      expect(value(samples, 'signfold_projection_lag_seconds', {})).toBe(0);
      const timers = value(samples, 'signfold_effects', { reactor: 'reminders', state: 'pending' });
      expect(timers).toBeGreaterThan(0);
      const nextDue = value(samples, 'signfold_timer_next_due_seconds', { reactor: 'reminders' });
      expect(nextDue).toBeGreaterThan(300 * 24 * 3600);

      // The sink accepts them now: retried through the running react, they succeed.
      failing = false;
      const retried = await runCli(['effects', 'retry', log, '--reactor', 'documents']);
      expect(retried.code).toBe(0);
      await eventually(async () => {
        const scraped = await scrape(react.url);
        return (
          value(scraped.samples, 'signfold_effect_attempts_total', {
            reactor: 'documents',
            result: 'succeeded',
          }) === completions
        );
      }, 'the retried effects to succeed');
      ({ samples } = await scrape(react.url));
      expect(value(samples, 'signfold_effects', { reactor: 'documents', state: 'parked' })).toBe(0);
      expect(value(samples, 'signfold_effects', { reactor: 'documents', state: 'running' })).toBe(
        0,
      );

      // Records appended while it runs are folded, counted, and leave no lag.
      await appendFile(log, later.map((logged) => `${envelopeLine(logged)}\n`).join(''));
      await eventually(async () => {
        const scraped = await scrape(react.url);
        return value(scraped.samples, 'signfold_events_total', {}) === events.length;
      }, 'the appended records to be counted');
      ({ samples } = await scrape(react.url));
      expect(value(samples, 'signfold_projection_lag_events', {})).toBe(0);
    } finally {
      react.child.kill('SIGTERM');
      expect(await react.exited).toBe(0);
      await sink.close();
    }
    await expect(fetch(react.url, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
  });
});
