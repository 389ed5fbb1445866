/**
 * `pg export` prints replay --json's arrays, equal as JSON, and `pg events` writes the store as a
 * log whose replay gives them back: on the example log (bad lines, invalid events, conflicts, spread
 * over 16 partitions), and on the hostile corpus with an event skipped by `pg skip`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { asStored } from '../../support/partition-checks.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

const EXAMPLE = join(ROOT, 'examples/events.ndjson');
const ARRAYS = ['templates', 'signRequests', 'participants', 'quarantine'] as const;

interface Quarantined {
  readonly position: number;
  readonly line: number;
  readonly raw: string;
  readonly reason: { readonly kind: string; readonly message: string };
}
type Exported = Record<(typeof ARRAYS)[number], unknown[]>;

let server: PostgresServer;

beforeAll(async () => {
  server = await postgresDatabase();
});

afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

const ok = async (args: readonly string[]): Promise<string> => {
  const result = await runCli(args);
  expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
  return result.stdout;
};

/** A database holding `log`, projected by `pg work --drain`, with the position `skip` skipped first. */
const storeOf = async (name: string, log: string, skip?: number): Promise<string> => {
  const url = await server.createDatabase(name);
  await ok(['pg', 'migrate', '--database', url]);
  await ok(['pg', 'import', log, '--database', url]);
  if (skip !== undefined) {
    await ok(['pg', 'skip', '--position', String(skip), '--database', url, '--reason', 'test']);
  }
  await ok(['pg', 'work', '--database', url, '--drain', '--batch-size', '97']);
  return url;
};

const replayOf = async (path: string): Promise<Exported> =>
  JSON.parse(await ok(['replay', path, '--json'])) as Exported;

/** `pg events` of `url` written to a file, and that file. */
const eventsOf = async (url: string): Promise<{ path: string; text: string }> => {
  const text = await ok(['pg', 'events', '--database', url]);
  const path = join(await tempDir(), 'events.ndjson');
  await writeFile(path, text);
  return { path, text };
};

/** A bad line's message is derived anew from its stored text by a replay of the written file. */
const withoutBadLineMessage = (q: Quarantined): unknown =>
  q.reason.kind === 'bad-line' ? { ...q, reason: { kind: 'bad-line' } } : q;

describe('pg export and pg events', () => {
  it('export equals replay --json of the example log, array for array, and pg events replays to it', async () => {
    const url = await storeOf('exports_example', EXAMPLE);
    const exported = JSON.parse(await ok(['pg', 'export', '--database', url])) as Exported;
    const replayed = await replayOf(EXAMPLE);
    for (const key of ARRAYS) expect(exported[key], key).toEqual(replayed[key]);
    // Not sorted by id: the example's first-seen order is not its id order.
    const ids = (exported.signRequests as { id: number }[]).map((r) => r.id);
    expect(ids).not.toEqual([...ids].sort((a, b) => a - b));

    const events = await eventsOf(url);
    const again = await replayOf(events.path);
    for (const key of ['templates', 'signRequests', 'participants'] as const) {
      expect(again[key], key).toEqual(exported[key]);
    }
    expect((again.quarantine as Quarantined[]).map(withoutBadLineMessage)).toEqual(
      (exported.quarantine as Quarantined[]).map(withoutBadLineMessage),
    );
    // Line N is position N, and every line but a bad line's comes back byte for byte.
    const original = (await readFile(EXAMPLE, 'utf8')).split('\n');
    const written = events.text.split('\n');
    expect(written.length).toBe(original.length);
    const bad = new Set(
      (exported.quarantine as Quarantined[])
        .filter((q) => q.reason.kind === 'bad-line')
        .map((q) => q.line),
    );
    expect(bad.size).toBeGreaterThan(0);
    written.forEach((line, i) => {
      if (!bad.has(i + 1)) expect(line, `line ${i + 1}`).toBe(original[i]);
    });
  });

  it('the hostile corpus, with an event skipped, replays from pg events to the state export prints', async () => {
    const corpus = await readFile(HOSTILE_CORPUS, 'utf8');
    // The first line of the clean lifecycle of sign request 5001: skipped, it must stay unapplied.
    const sent = corpus.split('\n').findIndex((line) => line.includes('"sign-request-sent"'));
    expect(sent).toBeGreaterThanOrEqual(0);
    const url = await storeOf('exports_hostile', HOSTILE_CORPUS, sent + 1);
    const exported = JSON.parse(await ok(['pg', 'export', '--database', url])) as Exported;
    const events = await eventsOf(url);
    const again = await replayOf(events.path);
    // The tables hold NUL and lone surrogates as U+FFFD, as any text (docs/postgres.md).
    for (const key of ['templates', 'signRequests', 'participants'] as const) {
      expect(asStored(again[key]), key).toEqual(exported[key]);
    }
    const quarantine = exported.quarantine as Quarantined[];
    const replayedQuarantine = asStored(again.quarantine) as Quarantined[];
    expect(replayedQuarantine.length).toBe(quarantine.length);
    // Events keep their verdicts exactly; bad lines stay bad lines (in a file, a run of them shares a position).
    const events_ = (qs: Quarantined[]) => qs.filter((q) => q.reason.kind !== 'bad-line');
    expect(events_(replayedQuarantine)).toEqual(events_(quarantine));
    const skipped = replayedQuarantine.find((q) => q.line === sent + 1);
    expect(skipped?.reason.kind).toBe('bad-line');
    expect(skipped?.raw.startsWith('# skipped with signfold pg skip: test: ')).toBe(true);
    // Nothing the export holds is lost, and the written log is one record a line.
    expect(events.text.split('\n').filter((line) => line.trim() !== '').length).toBeGreaterThan(
      quarantine.length,
    );
  });
});
