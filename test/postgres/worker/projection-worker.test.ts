import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createProjector } from '../../../src/engine/projector.js';
import { importRecords } from '../../../src/postgres/log/import-events.js';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { readProjections } from '../../../src/postgres/read/read-projections.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { createProjectionWorker } from '../../../src/postgres/worker/projection-worker.js';
import { readFileEventLog } from '../../../src/store/file-record-stream.js';
import { events } from '../../../src/testing/index.js';
import { rawStreamArb, recordsLog, recordsOf } from '../../support/engine-arbitraries.js';
import { expectEqualsSequentialFold } from '../../support/partition-checks.js';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { sortedRecords } from '../../support/projection-records.js';

const EXAMPLE = join(import.meta.dirname, '../../../examples/events.ndjson');

const db = throwawayPostgres();
let schemas = 0;

const freshSchema = async (): Promise<string> => {
  schemas += 1;
  const schema = `w${schemas}`;
  (await migrate(db.pool, { schema }))._unsafeUnwrap();
  return schema;
};

describe('the projection worker', () => {
  it('projects the example log exactly as the in-memory fold of the file', async () => {
    const schema = await freshSchema();
    const imported = await importRecords(db.pool, readFileEventLog(EXAMPLE), { schema });
    expect(imported._unsafeUnwrap().imported).toBeGreaterThan(1000);
    const worker = (
      await createProjectionWorker(db.pool, { schema, batchSize: 700 })
    )._unsafeUnwrap();
    const drained = (await worker.drain())._unsafeUnwrap();
    const file = createProjector({ audit: false });
    (await file.replay({ read: (o) => readFileEventLog(EXAMPLE, o) }))._unsafeUnwrap();
    const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
    expect(sortedRecords(stored.state)).toEqual(sortedRecords(file.state()));
    // The comparison covers the views' times only if the log gives them: it does (envelopes).
    const { signRequests, participants } = sortedRecords(stored.state);
    expect(
      signRequests.filter((r) => r.sentAt !== null && r.lastEventAt !== null).length,
    ).toBeGreaterThan(10);
    expect(participants.filter((p) => p.viewedAt !== null).length).toBeGreaterThan(10);
    expect(stored.quarantine.map((q) => q.message)).toEqual(
      file.quarantine().map((q) => q.reason.message),
    );
    expect(drained).toMatchObject({ ...file.stats(), processed: imported._unsafeUnwrap().read });
    await expectEqualsSequentialFold(db.pool, schema);
  });

  it('equals the fold on generated streams with conflicts, invalid values and bad lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true, maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        async (items, batchSize) => {
          const schema = await freshSchema();
          const records = recordsOf(items);
          (await importRecords(db.pool, recordsLog(records, 5).read(), { schema }))._unsafeUnwrap();
          const worker = (
            await createProjectionWorker(db.pool, { schema, batchSize })
          )._unsafeUnwrap();
          (await worker.drain())._unsafeUnwrap();
          const memory = createProjector({ audit: false });
          (await memory.replay(recordsLog(records)))._unsafeUnwrap();
          const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
          expect(sortedRecords(stored.state)).toEqual(sortedRecords(memory.state()));
          expect(stored.quarantine.map((q) => [q.position, q.reason, q.message])).toEqual(
            memory.quarantine().map((q) => [q.position, q.reason.kind, q.reason.message]),
          );
          expect(stored.checkpoint).toBe(memory.checkpoint);
        },
      ),
      { numRuns: 25, seed: 20261123 },
    );
  });

  it('picks up appends made after a drain, and a drain with nothing new changes nothing', async () => {
    const schema = await freshSchema();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    const worker = (await createProjectionWorker(db.pool, { schema }))._unsafeUnwrap();
    await log.append(events.signRequestSent());
    expect((await worker.drain())._unsafeUnwrap()).toMatchObject({ checkpoint: 1, applied: 1 });
    await log.append(events.participantViewed());
    await log.append(events.participantViewed());
    expect((await worker.drain())._unsafeUnwrap()).toMatchObject({
      checkpoint: 3,
      applied: 3,
      processed: 2,
    });
    expect((await worker.drain())._unsafeUnwrap()).toMatchObject({ checkpoint: 3, processed: 0 });
    const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
    expect(sortedRecords(stored.state).participants).toEqual([
      expect.objectContaining({ status: 'viewed', viewCount: 2 }),
    ]);
  });

  it('stores names PostgreSQL text cannot hold with U+FFFD instead of failing', async () => {
    const schema = await freshSchema();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    await log.append(events.templateActivated({ templateName: 'a\u0000b\ud800c' }));
    const worker = (await createProjectionWorker(db.pool, { schema }))._unsafeUnwrap();
    expect((await worker.drain())._unsafeUnwrap().applied).toBe(1);
    const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
    expect(sortedRecords(stored.state).templates[0]?.name).toBe('a\ufffdb\ufffdc');
  });

  it('two workers at once project every event once', async () => {
    const schema = await freshSchema();
    const records = recordsOf(
      fc.sample(rawStreamArb({ badLines: true, maxLength: 200 }), { numRuns: 1, seed: 7 })[0] ?? [],
    );
    (await importRecords(db.pool, recordsLog(records, 50).read(), { schema }))._unsafeUnwrap();
    const a = (await createProjectionWorker(db.pool, { schema, batchSize: 3 }))._unsafeUnwrap();
    const b = (await createProjectionWorker(db.pool, { schema, batchSize: 4 }))._unsafeUnwrap();
    for (const drained of await Promise.all([a.drain(), b.drain()])) drained._unsafeUnwrap();
    await expectEqualsSequentialFold(db.pool, schema);
  });
});
