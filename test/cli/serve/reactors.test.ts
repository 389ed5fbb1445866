/**
 * `serve --log FILE --reactors MODULE`: deliveries are reacted to in the
 * server process, the effect gauges are on /metrics, a running `react` on
 * the same log makes serve refuse to start, and --database is refused.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHttpSink } from '../../support/http-sink.js';
import { seededStoryLog } from '../../support/story-log.js';
import { CLI, ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';
import { deliver, eventually, metricValue, secretEnv, startServe } from './serve-process.js';

afterAll(removeTempDirs);

const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');

describe('serve --reactors', () => {
  it('executes the effects of stored deliveries and exposes pending and parked effects as gauges', async () => {
    let failing = true;
    const sink = await startHttpSink({
      fails: (call) => failing && call.body.signRequestId === 1001,
    });
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const env = secretEnv({
      SIGNFOLD_SINK_URL: sink.url,
      SINK_MAX_ATTEMPTS: '2',
      SINK_BASE_DELAY_MS: '10',
      SINK_MAX_DELAY_MS: '20',
    });
    const serve = await startServe(['--log', log, '--reactors', SINK_REACTORS], env);
    try {
      // Two sign requests that complete: 1000's effect succeeds, 1001's is parked after 2 attempts.
      const events = seededStoryLog(3, 2).map((e) => e.event);
      for (const [i, event] of events.entries()) {
        const answer = await deliver(serve.url, JSON.stringify(event), {
          'x-delivery-id': `d-${i}`,
        });
        expect(answer.status).toBe(200);
      }
      const completed = events
        .filter((e) => e.type === 'sign-request-completed')
        .map((e) => e.signRequestId);
      expect(completed).toContain(1001);
      await eventually(
        async () =>
          (await metricValue(serve.url, 'signfold_effects_parked{reactor="documents"}')) === 1,
        'a parked effect',
      );
      expect(await metricValue(serve.url, 'signfold_effects_pending{reactor="documents"}')).toBe(0);
      const fetched = sink.calls
        .filter((call) => !call.failed)
        .map((call) => call.body.signRequestId);
      expect(fetched.filter((id) => id !== 1001).sort()).toEqual(
        completed.filter((id) => id !== 1001).sort(),
      );
      failing = false;
    } finally {
      const exit = await serve.stop();
      expect(exit.code).toBe(0);
      await sink.close();
    }
    // The state is the file engine's: react and effects read it.
    const report = JSON.parse((await runCli(['effects', log, '--json'])).stdout);
    expect(
      report.parked.map((p: { reactor: string; attempts: number }) => [p.reactor, p.attempts]),
    ).toEqual([['documents', 2]]);
    expect(await readFile(`${log}.reactors`, 'utf8')).toContain('"documents"');
  });

  it('refuses to start while react runs on the log, and refuses --database', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const sink = await startHttpSink();
    await writeFile(log, '');
    const react = spawn(process.execPath, [CLI, 'react', log, '--reactors', SINK_REACTORS], {
      env: { ...process.env, SIGNFOLD_SINK_URL: sink.url },
      stdio: 'ignore',
    });
    try {
      await eventually(
        async () => (await readFile(`${log}.reactors.lock`, 'utf8').catch(() => '')) !== '',
        'the lock',
      );
      const refused = await runCli(
        ['serve', '--log', log, '--port', '0', '--reactors', SINK_REACTORS],
        ROOT,
        secretEnv(),
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`run by pid ${react.pid}`);
      const database = await runCli(
        ['serve', '--database', 'postgres://127.0.0.1:1/x', '--reactors', SINK_REACTORS],
        ROOT,
        secretEnv(),
      );
      expect(database.code).toBe(2);
      expect(database.stderr).toContain(
        'reactors run in the workers (signfold pg work --reactors MODULE)',
      );
    } finally {
      react.kill('SIGKILL');
      await sink.close();
    }
  });
});
