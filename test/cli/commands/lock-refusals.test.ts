/**
 * `reconcile` and `forget` on a file log whose writer takes no requests (another writer, a
 * paused or older signfold): each asks it, waits its bound, and exits 2 with a message that names
 * the command, the holder, and what would help (stop it, run the command, start it again;
 * `--dry-run` beside it), never the library's "read the log without writing"; the log is
 * unchanged. (With a running `serve --log` they go through it: through-serve.test.ts.)
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/testing/index.js';
import { eventually } from '../../support/eventually.js';
import {
  envelope,
  participantEvent,
  ROOT,
  removeTempDirs,
  runCli,
  tempDir,
} from '../cli-helpers.js';

const FETCH = join(ROOT, 'test/fixtures/reconcile/fetch-from-file.mjs');

afterAll(removeTempDirs);

/** A writer that holds the log and takes no requests: the library's file log, opened and kept. */
const HOLDER = `
const { openFileEventLog } = await import(${JSON.stringify(join(ROOT, 'dist/store/index.js'))});
const opened = await openFileEventLog(process.argv[1]);
if (opened.isErr()) { console.error(opened.error.message); process.exit(3); }
console.log('holding');
process.on('SIGTERM', async () => { await opened.value.close(); process.exit(0); });
setInterval(() => undefined, 1000);
`;

describe('a command that must write a file log another writer holds', () => {
  it('reconcile and forget are refused by name, with what would help, once the holder does not take their request', async () => {
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
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['--input-type=module', '-e', HOLDER, log], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    try {
      await eventually(() => out.includes('holding'), 'the other writer to hold the log');
      const before = await readFile(log);
      const reconcile = await runCli(['reconcile', log, '--fetch', FETCH, '--wait', '1'], ROOT, {
        ...process.env,
        SIGNFOLD_API_FILE: api,
      });
      const forget = await runCli(['forget', log, '--participant', '5', '--wait', '1']);
      for (const [run, command] of [
        [reconcile, 'reconcile'],
        [forget, 'forget'],
      ] as const) {
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(
          `signfold ${command} cannot write: event log ${log} is locked by pid ${child.pid}`,
        );
        expect(run.stderr).toContain(`run ${command}, start`);
        expect(run.stderr).toContain("stop 'signfold serve --log'");
        expect(run.stderr).toContain(
          `Pid ${child.pid} did not take signfold ${command}'s request within 1 s`,
        );
        expect(run.stderr).toContain('nothing was changed');
        expect(run.stderr).not.toContain('without writing');
      }
      expect(forget.stderr).toContain("'--dry-run' runs beside them");
      expect(reconcile.stderr).toContain(
        "PostgreSQL ('--database'), where reconcile and serve run side by side",
      );
      expect(await readFile(log)).toEqual(before);
      expect((await readdir(dir)).filter((name) => name.includes('.writer.'))).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
