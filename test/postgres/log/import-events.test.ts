import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../src/engine/event-log.js';
import { EventLogReadError } from '../../../src/engine/log-errors.js';
import { importRecords } from '../../../src/postgres/log/import-events.js';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { events } from '../../../src/testing/index.js';
import { removeTempDirs, runCli, tempDir } from '../../cli/cli-helpers.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';

let server: PostgresServer;
let pool: pg.Pool;
let dir: string;
let schemas = 0;

beforeAll(async () => {
  server = await postgresDatabase();
  pool = new pg.Pool({ connectionString: server.url, max: 4 });
  dir = await tempDir();
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
  await removeTempDirs();
});

const freshSchema = async (): Promise<string> => {
  schemas += 1;
  const schema = `imp${schemas}`;
  (await migrate(pool, { schema }))._unsafeUnwrap();
  return schema;
};

/** An envelope record for sign request `id`, with delivery id `d-<delivery>`. */
const entry = (position: number, id: number, delivery?: string): LogRecord => {
  const event = events.signRequestSent({ signRequestId: id });
  return {
    kind: 'entry',
    position,
    line: position,
    receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)).toISOString(),
    deliveryId: delivery,
    event,
    raw: JSON.stringify(event),
  };
};

async function* inBatches(records: readonly LogRecord[], size = 1000) {
  for (let i = 0; i < records.length; i += size) yield records.slice(i, i + size);
}

const storedRows = async (schema: string) =>
  (
    await pool.query<{ position: string; delivery_id: string | null; sign_request_id: string }>(
      `SELECT position, delivery_id, sign_request_id FROM ${schema}.events ORDER BY position`,
    )
  ).rows.map((row) => ({ delivery: row.delivery_id, id: Number(row.sign_request_id) }));

describe('importRecords', () => {
  it('stores records in order and skips delivery ids already stored, even far apart in the file', async () => {
    const schema = await freshSchema();
    const log = (await openPostgresEventLog(pool, { schema }))._unsafeUnwrap();
    (
      await log.append(events.signRequestSent({ signRequestId: 1 }), { deliveryId: 'd-0' })
    )._unsafeUnwrap();
    // More records than one COPY batch, so that the repeats fall in other batches than the originals.
    const records = Array.from({ length: 25_000 }, (_, i) => entry(i + 1, i + 10, `d-${i + 1}`));
    records.push(entry(25_001, 99, 'd-3')); // repeats line 3, two batches later
    records.push(entry(25_002, 98, 'd-0')); // stored by the append above
    records.push(entry(25_003, 97, 'd-25003'));
    records.push(entry(25_004, 96, 'd-25003')); // repeats the line before, same batch
    records.push(entry(25_005, 95)); // no delivery id
    const outcome = (await importRecords(pool, inBatches(records), { schema }))._unsafeUnwrap();
    expect(outcome).toEqual({
      read: 25_005,
      imported: 25_002,
      duplicates: 3,
      badLines: 0,
      tornTail: false,
    });
    const rows = await storedRows(schema);
    expect(rows).toHaveLength(25_003);
    expect(rows[0]).toEqual({ delivery: 'd-0', id: 1 });
    expect(rows.slice(1, 4)).toEqual([
      { delivery: 'd-1', id: 10 },
      { delivery: 'd-2', id: 11 },
      { delivery: 'd-3', id: 12 }, // the first occurrence wins
    ]);
    expect(rows.slice(-2)).toEqual([
      { delivery: 'd-25003', id: 97 },
      { delivery: null, id: 95 },
    ]);
    await log.close();
  });

  it('imported twice, stores lines with delivery ids once and lines without again', async () => {
    const schema = await freshSchema();
    const records = [entry(1, 10, 'd-1'), entry(2, 11), entry(3, 12, 'd-3')];
    const first = (await importRecords(pool, inBatches(records), { schema }))._unsafeUnwrap();
    const again = (await importRecords(pool, inBatches(records), { schema }))._unsafeUnwrap();
    expect(first).toMatchObject({ read: 3, imported: 3, duplicates: 0 });
    expect(again).toMatchObject({ read: 3, imported: 1, duplicates: 2 });
    expect((await storedRows(schema)).map((row) => row.id)).toEqual([10, 11, 12, 11]);
  });

  it('stores bad lines with their reason and leaves out a torn tail', async () => {
    const schema = await freshSchema();
    const records: LogRecord[] = [
      entry(1, 10, 'd-1'),
      { kind: 'bad-line', position: 2, line: 2, raw: '{"broken', reason: 'invalid JSON: cut' },
      { kind: 'bad-line', position: 3, line: 3, raw: '{"ty', reason: 'torn', tornTail: true },
    ];
    const outcome = (await importRecords(pool, inBatches(records), { schema }))._unsafeUnwrap();
    expect(outcome).toEqual({ read: 2, imported: 2, duplicates: 0, badLines: 1, tornTail: true });
    const { rows } = await pool.query(
      `SELECT body, bad_line FROM ${schema}.events ORDER BY position`,
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual({ body: '{"broken', bad_line: 'invalid JSON: cut' });
  });

  it('stores bodies with tabs, backslashes, quotes and carriage returns exactly', async () => {
    const schema = await freshSchema();
    const raw = '{"type":\t"template-deleted", "templateName": "a\\"b\\\\c\\n\\t"}';
    const event = JSON.parse(raw) as unknown;
    const bad = 'not json \\ with\ttab and \r return';
    const records: LogRecord[] = [
      {
        kind: 'entry',
        position: 1,
        line: 1,
        receivedAt: undefined,
        deliveryId: 'tab\tand\\',
        event,
        raw,
      },
      { kind: 'bad-line', position: 2, line: 2, raw: bad, reason: 'invalid JSON: \\ and \t' },
    ];
    (await importRecords(pool, inBatches(records), { schema }))._unsafeUnwrap();
    const { rows } = await pool.query(
      `SELECT delivery_id, body, bad_line FROM ${schema}.events ORDER BY position`,
    );
    expect(rows).toEqual([
      { delivery_id: 'tab\tand\\', body: raw, bad_line: null },
      { delivery_id: null, body: bad, bad_line: 'invalid JSON: \\ and \t' },
    ]);
  });

  it('is all or nothing: a source that fails half-way stores nothing', async () => {
    const schema = await freshSchema();
    async function* failing() {
      yield Array.from({ length: 30_000 }, (_, i) => entry(i + 1, i + 10, `d-${i + 1}`));
      throw new EventLogReadError({
        kind: 'io',
        code: 'EIO',
        path: 'x.ndjson',
        message: 'EIO: read x.ndjson',
      });
    }
    const outcome = await importRecords(pool, failing(), { schema });
    expect(outcome._unsafeUnwrapErr()).toMatchObject({ kind: 'source' });
    expect(outcome._unsafeUnwrapErr().message).toContain('EIO: read x.ndjson');
    expect(await storedRows(schema)).toEqual([]);
  });

  it('two import processes at once store every delivery id once, in file order', async () => {
    const schema = await freshSchema();
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({
        position: i + 1,
        receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        deliveryId: `d-${i + 1}`,
        event: events.signRequestSent({ signRequestId: i + 10 }),
      }),
    );
    const file = join(dir, 'two.ndjson');
    await writeFile(file, `${lines.join('\n')}\n`);
    const run = async () =>
      (await runCli(['pg', 'import', file, '--database', server.url, '--schema', schema])).code;
    expect(await Promise.all([run(), run()])).toEqual([0, 0]);
    const rows = await storedRows(schema);
    expect(rows.map((row) => row.delivery)).toEqual(lines.map((_, i) => `d-${i + 1}`));
  });
});
