/**
 * The shared hostile corpus (`../shared/hostile/hostile.ndjson`) through `pg import` and
 * `pg work --drain` with one and three worker processes (the compiled CLI), as it is and with
 * random mutations of its id values: every worker exits 0, and the tables, the quarantine
 * (reason and message of each line) and the counters equal what `replay` computes from the
 * same file, line by line. The one difference the store makes: a line whose delivery id is
 * already stored is a duplicate there (not stored), where the fold of the file sees it again.
 * Posted line by line to the PostgreSQL webhook recipe, whatever it stores keeps 1 and 3 workers
 * going, and the tables equal the fold of the store (the HTTP answers themselves are checked in
 * test/reliability/hostile-corpus-paths.test.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createProjector, type Projector } from '../../src/engine/projector.js';
import { sqlText } from '../../src/postgres/event-routing.js';
import { readProjections } from '../../src/postgres/read/read-projections.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { CLI, ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import { idMutationsArb, mutateIds } from '../support/hostile-mutations.js';
import {
  asStored,
  expectEqualsSequentialFold,
  summedCounters,
} from '../support/partition-checks.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { sortedRecords } from '../support/projection-records.js';

const CORPUS = HOSTILE_CORPUS;

const db = throwawayPostgres(4);

afterAll(async () => {
  await removeTempDirs();
});

/** What the fold of the file did with one record. */
interface Verdict {
  readonly record: LogRecord;
  readonly outcome: string;
  /** Reason and message, for a quarantined record. */
  readonly reason?: string;
  readonly message?: string;
}

/** `replay`'s fold of a file, record by record (the library's projector on the file reader). */
const replayOf = async (file: string): Promise<{ projector: Projector; verdicts: Verdict[] }> => {
  const projector = createProjector({ audit: false });
  const verdicts: Verdict[] = [];
  for await (const batch of readFileEventLog(file)) {
    for (const record of batch) {
      const outcome = projector.applyRecord(record)._unsafeUnwrap();
      const entry = outcome === 'quarantined' ? projector.quarantine().at(-1) : undefined;
      verdicts.push(
        entry === undefined
          ? { record, outcome }
          : { record, outcome, reason: entry.reason.kind, message: entry.reason.message },
      );
    }
  }
  return { projector, verdicts };
};

/** A record `pg import` leaves out: a torn tail, or a delivery id seen before (stored once). */
const duplicatesOf = (verdicts: readonly Verdict[]): Set<Verdict> => {
  const seen = new Set<string>();
  const duplicates = new Set<Verdict>();
  for (const verdict of verdicts) {
    const { record } = verdict;
    if (record.kind !== 'entry' || record.deliveryId === undefined) continue;
    const id = sqlText(record.deliveryId);
    if (seen.has(id)) duplicates.add(verdict);
    seen.add(id);
  }
  return duplicates;
};

const exitOf = (args: readonly string[]): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });

let schemas = 0;

// The drain workers run with a 10 s lease: on a busy machine a 2 s one could lapse for a live
// worker, which then prints that a partition is now another worker's (and any stderr fails the
// check) or has a transaction idle past the lease ended by the server. They still share the
// partitions: each looks at its share every 2.5 s.

/**
 * Imports `file` into a fresh schema with `pg import`, drains it with `workers` processes of
 * `pg work --drain`, and checks everything against `replay`'s fold of the file.
 */
const checkThroughPostgres = async (file: string, workers: number): Promise<void> => {
  schemas += 1;
  const schema = `hostile_${workers}_${schemas}`;
  (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
  const database = ['--database', db.server.url, '--schema', schema];
  const imported = await runCli(['pg', 'import', file, ...database]);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  const runs = await Promise.all(
    Array.from({ length: workers }, () =>
      exitOf(['pg', 'work', '--drain', '--batch-size', '3', '--lease', '10000', ...database]),
    ),
  );
  for (const run of runs) expect(run).toEqual({ code: 0, stderr: '' });

  const replay = await replayOf(file);
  const duplicates = duplicatesOf(replay.verdicts);
  // A redelivered line never changes state in the fold, so leaving it out changes nothing else.
  for (const duplicate of duplicates) expect(duplicate.outcome).not.toBe('applied');
  const stored = replay.verdicts.filter((v) => !duplicates.has(v) && v.outcome !== 'incomplete');
  // The store's positions are its own: line i of what it stores is the i-th stored record.
  const { rows } = await db.pool.query<{ position: string }>(
    `SELECT position FROM ${schema}.events ORDER BY position`,
  );
  expect(rows.length).toBe(stored.length);
  const indexOf = new Map(rows.map((row, i) => [Number(row.position), i]));

  const tables = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
  expect(sortedRecords(tables.state)).toEqual(asStored(sortedRecords(replay.projector.state())));
  expect(
    tables.quarantine.map((q) => ({
      index: indexOf.get(q.position),
      reason: q.reason,
      message: q.message,
    })),
  ).toEqual(
    stored.flatMap((v, index) =>
      v.outcome === 'quarantined'
        ? [{ index, reason: v.reason, message: sqlText(v.message ?? '') }]
        : [],
    ),
  );
  const expected = { ...replay.projector.stats() };
  for (const duplicate of duplicates) {
    if (duplicate.outcome === 'no-op') expected.noOps -= 1;
    else if (duplicate.reason === 'conflict') expected.conflicts -= 1;
    else expected.invalid -= 1;
  }
  const counters = await summedCounters(db.pool, schema);
  expect(counters).toEqual({ ...expected, checkpoint: Number(rows.at(-1)?.position ?? 0) });
};

describe('the hostile corpus through pg import and pg work', () => {
  it("the reference is replay's: signfold replay --json gives the same counters and quarantine", async () => {
    const replay = await replayOf(CORPUS);
    const cli = await runCli(['replay', CORPUS, '--json']);
    expect(cli.code).toBe(0);
    const report = JSON.parse(cli.stdout) as {
      stats: unknown;
      quarantine: { position: number; reason: { kind: string; message: string } }[];
    };
    expect(report.stats).toEqual(replay.projector.stats());
    expect(report.quarantine.map((q) => [q.position, q.reason.kind, q.reason.message])).toEqual(
      replay.projector.quarantine().map((q) => [q.position, q.reason.kind, q.reason.message]),
    );
  });

  for (const workers of [1, 3]) {
    it(`${workers} worker process(es): every worker exits 0 and the result is replay's`, async () => {
      await checkThroughPostgres(CORPUS, workers);
    });
  }

  it("envelopes without receivedAt, or whose event is not an object, get replay's verdict and message", async () => {
    const template = JSON.stringify({
      type: 'template-activated',
      companyId: 1,
      templateId: 7,
      templateName: 'NDA',
      ownerId: 3,
      ownerName: 'Sam',
    });
    const file = join(await tempDir(), 'envelopes.ndjson');
    const lines = [
      '{"position":1,"deliveryId":"e-1","event":17}',
      `{"position":2,"event":${template}}`,
      '{ "position" : 3 , "event" : [1, {"a":"}"}] , "event": "x\\"y" }',
      '{"position":4,"receivedAt":"2026-03-01T10:00:00.000Z","event":null}',
      '{"position":5,"event":{"type":"template-deleted","companyId":1,"templateId":1e400}}',
    ];
    await writeFile(file, `${lines.join('\n')}\n`);
    const replay = await replayOf(file);
    expect(replay.verdicts.map((v) => v.outcome)).toEqual([
      'quarantined',
      'applied',
      'quarantined',
      'quarantined',
      'quarantined',
    ]);
    await checkThroughPostgres(file, 1);
  });

  it("counts a redelivered line as a duplicate where replay's fold sees a no-op", async () => {
    const event = {
      type: 'template-activated',
      companyId: 1,
      templateId: 7,
      templateName: 'NDA',
      ownerId: 3,
      ownerName: 'Sam',
    };
    const line = (position: number) =>
      JSON.stringify({
        position,
        receivedAt: '2026-03-01T10:00:00.000Z',
        deliveryId: 'd-1',
        event,
      });
    const file = join(await tempDir(), 'redelivered.ndjson');
    await writeFile(file, `${line(1)}\n${line(2)}\n`);
    const replay = await replayOf(file);
    expect(replay.verdicts.map((v) => v.outcome)).toEqual(['applied', 'no-op']);
    await checkThroughPostgres(file, 1);
  });
});

const CORPUS_BYTES = readFileSync(CORPUS);

describe('the hostile corpus with random id values, through pg import and pg work', () => {
  it('ends, on 1 and 3 worker processes, in replay’s tables, quarantine and counters', async () => {
    const dir = await tempDir();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        idMutationsArb(CORPUS_BYTES),
        fc.constantFrom(1, 3),
        async (mutations, workers) => {
          run += 1;
          const file = join(dir, `mutated-${run}.ndjson`);
          await writeFile(file, mutateIds(CORPUS_BYTES, mutations));
          await checkThroughPostgres(file, workers);
        },
      ),
      { numRuns: count(3, 30), endOnFailure: true },
    );
  });
});

/** How the HTTP path gets a line: an envelope's event with its delivery id, anything else as it is. */
const deliveryOf = (line: Buffer): { body: Uint8Array; deliveryId?: string } => {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(line));
  } catch {
    return { body: line };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { body: line };
  const { position, event, deliveryId } = value as Record<string, unknown>;
  if (typeof position !== 'number' || !('event' in value)) return { body: line };
  const body = new TextEncoder().encode(JSON.stringify(event));
  return typeof deliveryId === 'string' ? { body, deliveryId } : { body };
};

describe('the hostile corpus, posted line by line to examples/webhook-server-pg.js', () => {
  it('whatever the receiver stores, 1 and 3 pg work processes exit 0 and the tables equal the fold of the store', async () => {
    const bytes = readFileSync(CORPUS);
    const lines: Buffer[] = [];
    for (let start = 0, end = bytes.indexOf(0x0a); end !== -1; end = bytes.indexOf(0x0a, start)) {
      lines.push(bytes.subarray(start, end));
      start = end + 1;
    }
    const recipe = (await import(
      pathToFileURL(join(ROOT, 'examples/webhook-server-pg.js')).href
    )) as {
      startServer(options: object): Promise<{ url: string; close(): Promise<void> }>;
    };
    for (const workers of [1, 3]) {
      const schema = `hostile_http_${workers}`;
      (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
      // Unsigned deliveries: this is about bodies (signatures: test/webhooks/).
      const receiver = await recipe.startServer({
        databaseUrl: db.server.url,
        schema,
        port: 0,
        insecureNoSignature: true,
      });
      try {
        for (const line of lines) {
          const { body, deliveryId } = deliveryOf(line);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (deliveryId !== undefined) headers['x-delivery-id'] = deliveryId;
          const answer = await fetch(receiver.url, { method: 'POST', body, headers });
          // Stored (200) or refused as not JSON (400): never a server error.
          expect([200, 400]).toContain(answer.status);
          await answer.arrayBuffer();
        }
      } finally {
        await receiver.close();
      }
      const database = ['--database', db.server.url, '--schema', schema];
      const runs = await Promise.all(
        Array.from({ length: workers }, () =>
          exitOf(['pg', 'work', '--drain', '--batch-size', '3', '--lease', '10000', ...database]),
        ),
      );
      for (const run of runs) expect(run).toEqual({ code: 0, stderr: '' });
      await expectEqualsSequentialFold(db.pool, schema);
    }
  });
});
