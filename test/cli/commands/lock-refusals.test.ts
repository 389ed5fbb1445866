/**
 * `reconcile` and `forget` on a file log that a real `serve --log` holds: each exits 2 with a
 * message that names the command and says what would help (stop serve, run it, start serve
 * again; `--dry-run` beside it), never the library's "read the log without writing"; the log is
 * unchanged, and serve goes on taking deliveries.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { events } from '../../../src/testing/index.js';
import {
  envelope,
  participantEvent,
  ROOT,
  removeTempDirs,
  runCli,
  tempDir,
} from '../cli-helpers.js';
import { deliver, eventBody, killLeftoverServes, startServe } from '../serve/serve-process.js';

const FETCH = join(ROOT, 'test/fixtures/reconcile/fetch-from-file.mjs');

afterEach(killLeftoverServes);
afterAll(removeTempDirs);

describe('a command that must write a file log that serve holds', () => {
  it('reconcile and forget are refused by name, with what would help; serve keeps taking deliveries', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeFile(
      log,
      `${[
        envelope(1, events.signRequestSent({ signRequestId: 1000 })),
        envelope(2, participantEvent('participant-sent', 1000, 5, false)),
      ].join('\n')}\n`,
    );
    const api = join(dir, 'api.json');
    await writeFile(api, JSON.stringify({ 1000: { id: 1000, status: 'Completed' } }));
    const serve = await startServe(['--log', log]);
    const before = await readFile(log);
    const reconcile = await runCli(['reconcile', log, '--fetch', FETCH], ROOT, {
      ...process.env,
      SIGNFOLD_API_FILE: api,
    });
    const forget = await runCli(['forget', log, '--participant', '5']);
    for (const [run, command] of [
      [reconcile, 'reconcile'],
      [forget, 'forget'],
    ] as const) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        `signfold ${command} cannot write: event log ${log} is locked by pid ${serve.child.pid}`,
      );
      expect(run.stderr).toContain(`run ${command}, start`);
      expect(run.stderr).toContain("stop 'signfold serve --log'");
      expect(run.stderr).not.toContain('without writing');
    }
    expect(forget.stderr).toContain("'--dry-run' runs beside them");
    expect(reconcile.stderr).toContain(
      "PostgreSQL ('--database'), where reconcile and serve run side by side",
    );
    expect(await readFile(log)).toEqual(before);
    const answer = await deliver(serve.url, eventBody(77), { 'x-delivery-id': 'after' });
    expect(answer.status).toBe(200);
    expect((await serve.stop()).code).toBe(0);
    expect(await readFile(log, 'utf8')).toContain('"deliveryId":"after"');
  }, 60_000);
});
