/**
 * A request whose signature and completion were lost, repaired by an
 * observation record, on both engines through the real CLI: a reactor that
 * acts on the transition to completed executes once (`react` on the file
 * log, `pg work --reactors` on PostgreSQL), and `replay --json` and
 * `pg export` show the same times: `sentAt` from the delivery, `completedAt`
 * and `signedAt` from the observation, marked `outcomeFrom: "observation"`;
 * a delivered completion is marked `"event"`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observationRecord } from '../../../src/core/observations/observation-record.js';
import { decodeSignRequest } from '../../../src/index.js';
import { events } from '../../../src/testing/index.js';
import { callsByKey, startHttpSink } from '../../support/http-sink.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

const REACTORS = join(ROOT, 'test/fixtures/reactors/completion-transition-reactors.mjs');
const FETCHED = '2026-11-27T12:00:00.000Z';
const at = (second: number) => `2026-11-20T10:00:0${second}.000Z`;

let server: PostgresServer;
let dir: string;

beforeAll(async () => {
  server = await postgresDatabase();
  dir = await tempDir();
});

afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

const line = (position: number, receivedAt: string, event: object) =>
  JSON.stringify({ position, receivedAt, event });

/** Request 1000 lost its signature and completion (repaired); request 1001 completed as delivered. */
const writeLog = async (): Promise<string> => {
  const completed = decodeSignRequest({
    id: 1000,
    name: events.signRequestSent().signRequestName,
    status: 'completed',
    formType: 'Form',
    savedTime: '2026-11-20 10:00:00',
    participants: [
      { id: 5, name: 'Ada Lovelace', status: 'Signed', role: { id: 7, name: 'Signer' } },
    ],
  })._unsafeUnwrap();
  const path = join(dir, 'events.ndjson');
  const lines = [
    line(1, at(1), events.signRequestSent()),
    line(2, at(2), events.participantSent()),
    line(3, at(3), events.signRequestSent({ signRequestId: 1001 })),
    line(4, at(4), events.participantSigned({ signRequestId: 1001 })),
    line(5, at(5), events.signRequestCompleted({ signRequestId: 1001 })),
    line(6, at(6), observationRecord(completed, { fetchedAt: new Date(FETCHED) })),
  ];
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
};

const views = (document: string) => {
  const parsed = JSON.parse(document) as {
    signRequests: { id: number }[];
    participants: { signRequestId: number; id: number }[];
  };
  return {
    signRequests: [...parsed.signRequests].sort((a, b) => a.id - b.id),
    participants: [...parsed.participants].sort(
      (a, b) => a.signRequestId - b.signRequestId || a.id - b.id,
    ),
  };
};

describe('a repaired request on both engines', () => {
  it('reacts once to its completion, and replay --json and pg export show the same outcome times', async () => {
    const log = await writeLog();
    const sink = await startHttpSink();
    try {
      const env = { ...process.env, SIGNFOLD_SINK_URL: sink.url };
      const react = await runCli(['react', log, '--reactors', REACTORS, '--drain'], ROOT, env);
      expect(react.code).toBe(0);
      expect(react.stderr).toContain('2 effects succeeded');
      const url = await server.createDatabase('repair_times');
      expect((await runCli(['pg', 'migrate', '--database', url, '--partitions', '2'])).code).toBe(
        0,
      );
      expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
      const work = await runCli(
        ['pg', 'work', '--database', url, '--drain', '--reactors', REACTORS],
        ROOT,
        env,
      );
      expect(work.code).toBe(0);
      // One effect per completed request on each engine, under the same key on both: the
      // repair's only on its last rebuilt event (the completion, event 1 of 2 at position 6).
      const byKey = callsByKey(sink.calls.filter((c) => !c.failed));
      expect([...byKey.keys()].sort()).toEqual(['on-completion:5:0', 'on-completion:6:1']);
      expect([...byKey.values()].map((calls) => calls.length)).toEqual([2, 2]);
      const perRequest = (id: number) =>
        sink.calls.filter((c) => !c.failed && c.body.signRequestId === id).length;
      expect([perRequest(1000), perRequest(1001)]).toEqual([2, 2]);
    } finally {
      await sink.close();
    }

    const replayed = await runCli(['replay', log, '--json']);
    expect(replayed.code).toBe(0);
    const fromFile = views(replayed.stdout);
    expect(fromFile.signRequests).toMatchObject([
      {
        id: 1000,
        status: 'completed',
        sentAt: at(1),
        completedAt: FETCHED,
        declinedAt: null,
        deletedAt: null,
        outcomeFrom: 'observation',
      },
      { id: 1001, status: 'completed', completedAt: at(5), outcomeFrom: 'event' },
    ]);
    expect(fromFile.participants).toMatchObject([
      { signRequestId: 1000, id: 5, sentAt: at(2), signedAt: FETCHED, outcomeFrom: 'observation' },
      { signRequestId: 1001, id: 5, signedAt: at(4), outcomeFrom: 'event' },
    ]);
    const url = await server.createDatabase('repair_times_export');
    expect((await runCli(['pg', 'migrate', '--database', url])).code).toBe(0);
    expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
    expect((await runCli(['pg', 'work', '--database', url, '--drain'])).code).toBe(0);
    const exported = await runCli(['pg', 'export', '--database', url]);
    expect(exported.code).toBe(0);
    expect(views(exported.stdout)).toEqual(fromFile);
  });
});
