/**
 * The hostile corpus (test/fixtures/hostile, a copy of ../shared/hostile; see its README) sent line
 * by line, signed, to a real `signfold serve` process on a file log and on PostgreSQL (issue 18):
 * an envelope line's `event`, as the line writes it, for the body with its `deliveryId` in the
 * delivery header; any other line as it is. No answer is a 500; a line that is not JSON gets 400;
 * a redelivery is answered as a duplicate and nothing is stored twice; and the decode and fold
 * verdicts of what was stored (`replay` of the served log, `pg work` on the database) equal
 * `replay`'s of the corpus line for line (test/support/hostile-deliveries.ts says the two
 * differences HTTP makes). As it is, and with random id values (fast-check, few runs by default).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServe, startServe } from '../../bench/serve-process.js';
import { deliveryHeaders } from '../../bench/serve-signature.js';
import { participantId, signRequestId } from '../../src/core/ids.js';
import { createProjector } from '../../src/engine/projector.js';
import { readProjections } from '../../src/postgres/read/read-projections.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import {
  type DeliveredReference,
  deliveredReference,
  hostileDeliveries,
  type Verdict,
  verdictOf,
} from '../support/hostile-deliveries.js';
import { idMutationsArb, mutateIds } from '../support/hostile-mutations.js';
import { asStored, expectEqualsSequentialFold } from '../support/partition-checks.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { sortedRecords, untimedRecords } from '../support/projection-records.js';
import { fileLogDeliveries, postgresDeliveries } from '../support/stored-deliveries.js';
import { SECRET, SECRET_ENV_VARS } from './fixtures/serve-deliveries.js';
import { freshDatabase } from './fixtures/serve-under-load.js';

const CORPUS = readFileSync(HOSTILE_CORPUS);
/** Code points never printed from data: C0 but tab and LF, DEL, C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point of the check
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

afterAll(removeTempDirs);
const db = throwawayPostgres(2);

/** What `serve` answered to one line. */
interface Answer {
  readonly line: number;
  readonly status: number;
  readonly position?: number;
  readonly duplicate?: boolean;
}

/** Posts every deliverable line of `corpus`, one after the other, signed; returns the answers. */
const deliverAll = async (serve: RunningServe, corpus: Buffer): Promise<Answer[]> => {
  const answers: Answer[] = [];
  for (const { line, body, deliveryId } of hostileDeliveries(corpus)) {
    const headers = {
      'content-type': 'application/json',
      ...deliveryHeaders(body, {
        secret: SECRET,
        ...(deliveryId === undefined ? {} : { deliveryId }),
      }),
    };
    const response = await fetch(serve.url, { method: 'POST', body, headers });
    const answer = (await response.json()) as { position?: number; duplicate?: boolean };
    answers.push({ line, status: response.status, ...answer });
  }
  return answers;
};

/** Each answer is what the reference says of its line: 400, a duplicate, or stored. */
const expectAnswers = (answers: readonly Answer[], reference: DeliveredReference): void => {
  expect(answers.filter((a) => a.status >= 500)).toEqual([]);
  for (const answer of answers) {
    const expected = reference.redeliveries.has(answer.line)
      ? { status: 200, duplicate: true }
      : reference.verdicts.get(answer.line) === 'bad-line'
        ? { status: 400 }
        : { status: 200, duplicate: false };
    expect(answer, `line ${answer.line}`).toMatchObject(expected);
  }
};

/** Stored position → corpus line, from the answers. */
const linesByPosition = (answers: readonly Answer[]): Map<number, number> =>
  new Map(
    answers.flatMap((a) =>
      a.status === 200 && a.duplicate === false && a.position !== undefined
        ? [[a.position, a.line]]
        : [],
    ),
  );

/** The reference verdicts of the lines that were stored (not refused, not redelivered). */
const storedVerdicts = (reference: DeliveredReference): Map<number, Verdict> =>
  new Map(
    [...reference.verdicts].filter(
      ([line, verdict]) => verdict !== 'bad-line' || reference.redeliveries.has(line),
    ),
  );

const expectCleanLifecycle = (state: ReturnType<DeliveredReference['projector']['state']>) => {
  expect(state.signRequests.get(signRequestId(5001))?.status).toBe('completed');
  expect(state.participants.get(signRequestId(5001))?.get(participantId(3))?.status).toBe('signed');
};

/** Delivers `corpus` to serve on a fresh file log; checks answers, the log, and its replay. */
const throughFileLog = async (corpus: Buffer, clean: boolean): Promise<void> => {
  const dir = await tempDir();
  const reference = await deliveredReference(corpus, dir);
  const path = join(dir, 'served.ndjson');
  const serve = await startServe(['--log', path], { env: SECRET_ENV_VARS, startMs: 60_000 });
  let answers: Answer[];
  try {
    answers = await deliverAll(serve, corpus);
  } finally {
    expect((await serve.stop('SIGTERM')).code).toBe(0);
  }
  expectAnswers(answers, reference);
  const stored = await fileLogDeliveries(path);
  expect([...stored.counts].filter(([, n]) => n > 1)).toEqual([]);
  const lineOf = linesByPosition(answers);
  expect(stored.records).toBe(lineOf.size);

  // The library's fold of the served log, record by record, against the reference.
  const projector = createProjector();
  const verdicts = new Map<number, Verdict>();
  for await (const batch of readFileEventLog(path)) {
    for (const record of batch) {
      verdicts.set(lineOf.get(record.position) ?? -record.position, verdictOf(projector, record));
    }
  }
  expect(verdicts).toEqual(storedVerdicts(reference));
  // Stored by the server, the events carry its arrival times: only those may differ.
  expect(untimedRecords(sortedRecords(projector.state()))).toEqual(
    untimedRecords(sortedRecords(reference.projector.state())),
  );
  if (clean) expectCleanLifecycle(projector.state());

  // And `replay` itself on the served log: the same quarantine and counters, nothing unprintable.
  const json = await runCli(['replay', path, '--json']);
  expect(json.code).toBe(0);
  const report = JSON.parse(json.stdout) as {
    quarantine: { line: number; reason: { kind: string } }[];
    stats: Record<string, number>;
  };
  expect(report.stats).toEqual(projector.stats());
  expect(report.quarantine.map((q) => [q.line, q.reason.kind])).toEqual(
    projector.quarantine().map((q) => [q.line, q.reason.kind]),
  );
  const text = await runCli(['replay', path]);
  expect(text.stdout + text.stderr).not.toMatch(FORBIDDEN);
};

let databases = 0;
/** Delivers `corpus` to serve on a fresh database, then `pg work --drain`; checks the tables. */
const throughPostgres = async (corpus: Buffer, clean: boolean): Promise<void> => {
  const reference = await deliveredReference(corpus, await tempDir());
  databases += 1;
  const database = await freshDatabase(db, `hostile_${databases}`);
  try {
    const serve = await startServe(['--database', database.url], {
      env: SECRET_ENV_VARS,
      startMs: 60_000,
    });
    let answers: Answer[];
    try {
      answers = await deliverAll(serve, corpus);
    } finally {
      expect((await serve.stop('SIGTERM')).code).toBe(0);
    }
    expectAnswers(answers, reference);
    const stored = await postgresDeliveries(database.pool);
    expect([...stored.counts].filter(([, n]) => n > 1)).toEqual([]);
    const lineOf = linesByPosition(answers);
    expect(stored.records).toBe(lineOf.size);

    const work = await runCli(['pg', 'work', '--drain', '--database', database.url]);
    expect(work.stderr).toBe('');
    expect(work.code).toBe(0);
    await expectEqualsSequentialFold(database.pool, 'signfold');
    const tables = (await readProjections(database.pool))._unsafeUnwrap();
    const quarantined = new Map(
      tables.quarantine.map((q) => [lineOf.get(q.position) ?? -q.position, q.reason]),
    );
    const expected = new Map(
      [...storedVerdicts(reference)].filter(([, v]) => v !== 'applied' && v !== 'no-op'),
    );
    expect(quarantined).toEqual(expected);
    expect(untimedRecords(sortedRecords(tables.state))).toEqual(
      untimedRecords(asStored(sortedRecords(reference.projector.state()))),
    );
    if (clean) expectCleanLifecycle(tables.state);
  } finally {
    await database.close();
  }
};

describe('the hostile corpus, delivered line by line to signfold serve', () => {
  it('on a file log: 400 for what is not JSON, duplicates answered, replay verdicts kept', async () => {
    await throughFileLog(CORPUS, true);
  });

  it('on PostgreSQL: the same answers, and pg work ends in the reference verdicts', async () => {
    await throughPostgres(CORPUS, true);
  });

  it('with random id values, on both stores', async () => {
    await fc.assert(
      fc.asyncProperty(idMutationsArb(CORPUS), async (mutations) => {
        const mutated = mutateIds(CORPUS, mutations);
        await throughFileLog(mutated, false);
        await throughPostgres(mutated, false);
      }),
      { numRuns: count(2, 20), endOnFailure: true },
    );
  });
});
