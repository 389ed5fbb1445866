/**
 * `signfold reconcile` on a file log, as a process: the done-when of the
 * repair (a log missing a completion is repaired, `replay` shows it,
 * `inspect` shows the repair, a second run appends nothing, a reactor on
 * completion fires once), failures per request that never stop the others
 * nor store anything, the writer lock, and hostile text from the API.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { observationRecord } from '../../../src/core/observations/observation-record.js';
import { decodeSignRequest } from '../../../src/index.js';
import { events } from '../../../src/testing/index.js';
import { callsByKey, startHttpSink } from '../../support/http-sink.js';
import { forbiddenIn } from '../../support/terminal-safety.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

const FETCH = join(ROOT, 'test/fixtures/reconcile/fetch-from-file.mjs');
const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');

const envelope = (position: number, event: object, receivedAt = '2026-11-20T10:00:00.000Z') =>
  JSON.stringify({ position, receivedAt, event });

const representation = (id: number, status: string, participantStatus: string) => ({
  id,
  name: `Request ${id}`,
  status,
  formType: 'Form',
  savedTime: '2026-11-20 10:00:00',
  participants: [{ id: 5, name: 'Ada Lovelace', status: participantStatus }],
});

/** Requests 1000 and 1001 sent to participant 5; the API says 1000 was completed (its deliveries were lost). */
const setUp = async (api: Record<string, unknown>) => {
  const dir = await tempDir();
  const log = join(dir, 'events.ndjson');
  const lines = [1000, 1001].flatMap((id, i) => [
    envelope(i * 2 + 1, events.signRequestSent({ signRequestId: id })),
    envelope(i * 2 + 2, events.participantSent({ signRequestId: id })),
  ]);
  await writeFile(log, `${lines.join('\n')}\n`);
  const apiFile = join(dir, 'api.json');
  await writeFile(apiFile, JSON.stringify(api));
  const calls = join(dir, 'calls.txt');
  const env = { ...process.env, SIGNFOLD_API_FILE: apiFile, SIGNFOLD_API_CALLS: calls };
  return { dir, log, env, calls };
};

const COMPLETED = representation(1000, 'Completed', 'Signed');
const STILL_SENT = representation(1001, 'Sent', 'Sent');

describe('signfold reconcile on a file log', () => {
  it('repairs a lost completion once: replay, inspect and a reactor see it, a second run appends nothing', async () => {
    const { dir, log, env } = await setUp({ 1000: COMPLETED, 1001: STILL_SENT });
    const first = await runCli(['reconcile', log, '--fetch', FETCH, '--rate', '50'], ROOT, env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'sign request 1000: repaired at position 5: status: projection says sent, service says completed; participant 5: projection says sent, service says signed',
    );
    expect(first.stdout).toContain('sign request 1001: agrees');
    expect(first.stdout).toContain(
      'reconcile: 2 sign requests asked: 1 repaired, 1 agrees, 0 unrepairable, 0 failed',
    );
    const stored = (await readFile(log, 'utf8')).trimEnd().split('\n');
    expect(stored).toHaveLength(5);
    const record = JSON.parse(stored[4] as string);
    expect(record.position).toBe(5);
    expect(record.event).toMatchObject({
      record: 'observation',
      signRequestId: 1000,
      companyId: 1,
    });

    const replay = await runCli(['replay', log, '--json'], ROOT, env);
    const summary = JSON.parse(replay.stdout);
    expect(summary.counts.signRequests).toMatchObject({ completed: 1, sent: 1 });
    expect(summary.counts.participants).toMatchObject({ signed: 1, sent: 1 });

    const inspect = await runCli(['inspect', log, '--sign-request', '1000'], ROOT, env);
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toMatch(/status\s+completed/);
    expect(inspect.stdout).toMatch(/\n\s+5\s+\S+\s+observation\s+-\s+applied/);
    expect(inspect.stdout).toContain('status: projection says sent, service says completed');

    const page = join(dir, 'report.html');
    expect((await runCli(['report', log, '--out', page], ROOT, env)).code).toBe(0);
    expect(await readFile(page, 'utf8')).toMatch(
      /data-metric="[^"]*summary\.repairs" data-value="1">1<\/span> request repaired from the service/,
    );

    const second = await runCli(
      ['reconcile', log, '--fetch', FETCH, '--sign-request', '1000', '--sign-request', '1001'],
      ROOT,
      env,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('sign request 1000: agrees');
    expect((await readFile(log, 'utf8')).trimEnd().split('\n')).toHaveLength(5);

    const sink = await startHttpSink();
    try {
      const react = await runCli(['react', log, '--reactors', SINK_REACTORS, '--drain'], ROOT, {
        ...env,
        SIGNFOLD_SINK_URL: sink.url,
      });
      expect(react.code).toBe(0);
      const documents = [...callsByKey(sink.calls).keys()].filter((key) =>
        key.startsWith('documents:'),
      );
      expect(documents).toEqual(['documents:5:1']);
    } finally {
      await sink.close();
    }
  });

  it('--dry-run lists the differences and appends nothing; --json gives the same results', async () => {
    const { log, env } = await setUp({ 1000: COMPLETED, 1001: STILL_SENT });
    const before = await readFile(log, 'utf8');
    const dry = await runCli(
      ['reconcile', log, '--fetch', FETCH, '--dry-run', '--json'],
      ROOT,
      env,
    );
    expect(dry.code).toBe(0);
    const out = JSON.parse(dry.stdout);
    expect(out.counts).toEqual({ agrees: 1, repaired: 1, unrepairable: 0, failed: 0 });
    expect(out.results[0]).toMatchObject({ kind: 'repaired', signRequestId: 1000 });
    expect(out.results[0].position).toBeUndefined();
    expect(await readFile(log, 'utf8')).toBe(before);
  });

  it('reports a failing, hanging or undecodable answer per request, stores nothing for it, goes on, and exits 1', async () => {
    const { log, env } = await setUp({
      1000: { $hang: true },
      1001: { ...STILL_SENT, status: 'Lost' },
      1002: { $throw: 'the API said 500\u001b[31m' },
      1003: { $text: '{"id": 1003' },
      1004: representation(1005, 'Completed', 'Signed'),
    });
    const before = await readFile(log, 'utf8');
    const ids = ['1000', '1001', '1002', '1003', '1004'].flatMap((id) => ['--sign-request', id]);
    // The deadline is every fetch's: 5 s lets the others answer on a busy machine, the hang waits it out.
    const run = await runCli(
      ['reconcile', log, '--fetch', FETCH, '--fetch-timeout', '5', '--rate', '50', ...ids],
      ROOT,
      env,
    );
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('sign request 1000: failed: no answer within 5000 ms');
    expect(lines[1]).toMatch(
      /^sign request 1001: failed: the answer is not a sign request: status: /,
    );
    expect(lines[2]).toBe('sign request 1002: failed: fetch failed: the API said 500\\u001b[31m');
    expect(lines[3]).toMatch(/^sign request 1003: failed: the answer is not JSON: /);
    expect(lines[4]).toBe(
      'sign request 1004: failed: asked for sign request 1004, the answer is sign request 1005',
    );
    expect(lines[5]).toBe(
      'reconcile: 5 sign requests asked: 0 repaired, 0 agree, 0 unrepairable, 5 failed',
    );
    expect(forbiddenIn(run.stdout)).toEqual([]);
    expect(await readFile(log, 'utf8')).toBe(before);
  });

  it('says why a difference cannot be repaired (the service reports a status behind the log) and appends nothing', async () => {
    const { log, env } = await setUp({ 1000: representation(1000, 'Draft', 'Sent') });
    const run = await runCli(
      ['reconcile', log, '--fetch', FETCH, '--sign-request', '1000'],
      ROOT,
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "sign request 1000: differs, not repairable (the service's representation is refused: invalid-transition:",
    );
    expect((await readFile(log, 'utf8')).trimEnd().split('\n')).toHaveLength(4);
  });

  it('picks only open requests older than --open-longer-than, and refuses a bad module or flag in one line', async () => {
    const { dir, log, env, calls } = await setUp({ 1000: COMPLETED, 1001: STILL_SENT });
    // Both were sent on 2026-11-20: a request open 1000 weeks is none of them.
    const none = await runCli(
      ['reconcile', log, '--fetch', FETCH, '--open-longer-than', '1000w'],
      ROOT,
      env,
    );
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(
      'reconcile: 0 sign requests asked: 0 repaired, 0 agree, 0 unrepairable, 0 failed\n',
    );
    await expect(readFile(calls, 'utf8')).rejects.toThrow();

    const bad = await runCli(
      ['reconcile', log, '--fetch', join(ROOT, 'test/fixtures/reconcile/not-a-function.mjs')],
      ROOT,
      env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/must export a function as its default export/);
    const missing = await runCli(['reconcile', log], ROOT, env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing --fetch MODULE/);
    const rate = await runCli(['reconcile', log, '--fetch', FETCH, '--rate', '0'], ROOT, env);
    expect(rate.code).toBe(2);
    expect(rate.stderr).toMatch(/--rate must be a positive number/);
    expect(dir).toBeTruthy();
  });
});

describe('reconcile --upcasters', () => {
  const EXPIRED_AS_DECLINED = `export default [{
  name: 'expired-as-declined',
  from: 'sign-request-expired',
  to: ({ templateId, templateName, ...rest }) => ({ ...rest, type: 'sign-request-declined' }),
}];
`;

  it('compares the state the upcasters fold: a request they closed is not asked about, nothing is appended', async () => {
    const { dir, log, env, calls } = await setUp({
      1000: representation(1000, 'Declined', 'Declined'),
      1001: STILL_SENT,
    });
    // Request 1000 expired: an event type only the upcaster knows (as declined).
    const expired = {
      ...events.signRequestDeclined({ signRequestId: 1000 }),
      type: 'sign-request-expired',
    };
    await writeFile(
      log,
      `${envelope(5, expired)}
`,
      { flag: 'a' },
    );
    const upcasters = join(dir, 'upcasters.mjs');
    await writeFile(upcasters, EXPIRED_AS_DECLINED);
    const args = ['reconcile', log, '--fetch', FETCH, '--rate', '50', '--dry-run'];

    const without = await runCli(args, ROOT, env);
    expect(without.stdout).toContain('sign request 1000: would repair');
    const upcast = await runCli([...args, '--upcasters', upcasters], ROOT, env);
    expect(upcast.stderr).toBe('');
    expect(upcast.code).toBe(0);
    expect(upcast.stdout).toBe(
      'sign request 1001: agrees\nreconcile: 1 sign request asked: 0 to repair, 1 agrees, 0 unrepairable, 0 failed\n',
    );
    // The run with upcasters asked only about 1001; the one without, about both.
    expect((await readFile(calls, 'utf8')).trimEnd().split('\n')).toEqual(['1000', '1001', '1001']);

    const applied = await runCli(
      [...args.filter((a) => a !== '--dry-run'), '--upcasters', upcasters],
      ROOT,
      env,
    );
    expect(applied.code).toBe(0);
    expect((await readFile(log, 'utf8')).trimEnd().split('\n')).toHaveLength(5);

    const bad = await runCli([...args, '--upcasters', join(dir, 'missing.mjs')], ROOT, env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^signfold: reconcile: cannot load /);
  });
});

describe('an observation record appended by hand', () => {
  it('is the same record reconcile writes: replay applies it', async () => {
    const { log, env } = await setUp({});
    const fetched = decodeSignRequest(COMPLETED)._unsafeUnwrap();
    const record = observationRecord(fetched, { fetchedAt: new Date('2026-11-27T00:00:00Z') });
    await writeFile(log, `${envelope(5, record)}\n`, { flag: 'a' });
    const replay = await runCli(['replay', log, '--json'], ROOT, env);
    expect(JSON.parse(replay.stdout).counts.signRequests).toMatchObject({ completed: 1, sent: 1 });
  });
});
