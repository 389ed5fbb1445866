/**
 * `forgetPostgres`: erases one person's names from a PostgreSQL store, in one
 * transaction T (docs/privacy.md, "PostgreSQL"):
 *
 * 1. T writes a `started` entry to the erasure ledger, which opens the
 *    controlled path past the append-only trigger for T alone (migration 6).
 * 2. While appends and workers go on, T collects the names the forgotten ids
 *    were stored with in the events up to the last position P, and rewrites
 *    those events (only body and bad_line).
 * 3. T fences the projection workers: it bumps the epoch of every partition
 *    (of the live schema and of a rebuild in progress). A batch commits only
 *    under the epoch it started with, after locking its partition's row
 *    (partition-batch.ts), so a batch that read events before T commits
 *    waits for T and then finds its claim changed: it writes nothing, and its
 *    worker takes the partition again at its next heartbeat and reads the
 *    rewritten events. A batch that committed before the fence (with the
 *    names it read before T) is seen by T's rewrites of the tables that hold
 *    text from events (forget-tables.ts), which come next.
 * 4. T takes the append lock: no append commits until T does, and one that
 *    waits for the lock sees T's ledger entries (erased-appends.ts). T
 *    rewrites the events stored after P (had they brought a new spelling of
 *    the person, it erases that everywhere), and writes the `done` entry
 *    with the counts. So appends wait for that tail only, and workers for
 *    the tables' rewrite and the tail, not for the scan of the events.
 *
 * Every lock wait of T is short (`lock_timeout`, under PostgreSQL's
 * `deadlock_timeout`, so a reader never gets a deadlock error because of
 * T: T gives way first); when one runs out, T is rolled back and tried again
 * after a pause, until `lockTimeoutMs` is spent.
 */
import { randomUUID } from 'node:crypto';
import { err, ok, type Result, safeTry } from 'neverthrow';
import type { NamesToErase } from '../../core/privacy/erase-in-text.js';
import { type ErasureEntry, ErasureLedger } from '../../core/privacy/erasure-ledger.js';
import type { ErasureSubject } from '../../core/privacy/erasure-subject.js';
import { newPseudonym } from '../../core/privacy/pseudonym.js';
import type { ForgetReport, ForgetRequest } from '../../engine/forget-report.js';
import { sqlText } from '../event-routing.js';
import { databaseError, type PostgresError, sqlState } from '../postgres-error.js';
import { REBUILD_SUFFIX } from '../rebuild/rebuild-schema.js';
import { RETIRED_SUFFIX } from '../rebuild/switch-projection.js';
import { checkSchema, type SchemaOptions } from '../schema/migrate.js';
import { appendLockSql } from '../schema/migrations.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { checkOut, rollBack, type SqlPool, type SqlPoolClient } from '../sql-client.js';
import { ensureNameKeyRow } from './erasure-key-rows.js';
import { readLedgerRows, writeErasureEntry } from './erasure-rows.js';
import { eraseEvents, namesInEvents, participantsNamedInEvents } from './forget-events.js';
import { eraseTables } from './forget-tables.js';

/** Options of {@link forgetPostgres}. */
export interface ForgetPostgresOptions extends SchemaOptions {
  /**
   * How long T may keep trying to get its locks, in ms (default 30,000):
   * each try waits at most `LOCK_TRY_MS` for any one lock.
   */
  readonly lockTimeoutMs?: number;
  /** The clock of the ledger entries; injectable for tests. */
  readonly now?: () => Date;
}

/**
 * The bound of one lock wait of T, in ms: below PostgreSQL's default
 * `deadlock_timeout` (1 s), so that T gives way before a deadlock check
 * could pick a reader (a projection batch, an append) as the victim.
 */
export const LOCK_TRY_MS = 400;

/**
 * SQLSTATE 55P03 (lock_not_available), 40P01 (deadlock_detected) and 40001
 * (another forget of the same person committed meanwhile): T gave way.
 */
const GAVE_WAY = new Set(['55P03', '40P01', '40001']);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The names as PostgreSQL text stores them too (NUL and lone surrogates as U+FFFD). */
const storedForms = (names: readonly string[]): string[] => [
  ...new Set(names.flatMap((name) => [name, sqlText(name)])),
];

/** The schemas beside `live` whose projection tables hold text from its events, if they exist. */
const besideSchemas = async (
  client: SqlPoolClient,
  live: SchemaName,
): Promise<{ readonly rebuild?: SchemaName; readonly retired?: SchemaName }> => {
  const rebuild = `${live}${REBUILD_SUFFIX}`;
  const retired = `${live}${RETIRED_SUFFIX}`;
  const { rows } = await client.query<{ nspname: string }>(
    'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1::text[])',
    [[rebuild, retired]],
  );
  const found = new Set(rows.map((row) => row.nspname));
  return {
    ...(found.has(rebuild) ? { rebuild: rebuild as SchemaName } : {}),
    ...(found.has(retired) ? { retired: retired as SchemaName } : {}),
  };
};

/** What a try of T needs. */
interface Try {
  readonly client: SqlPoolClient;
  readonly schema: SchemaName;
  readonly request: ForgetRequest;
  readonly now: () => Date;
}

/** T's statements up to its commit (the caller commits, or rolls back a dry run). */
const forgetIn = async ({ client, schema, request, now }: Try): Promise<ForgetReport> => {
  const write = !request.dryRun;
  const { ledger } = await readLedgerRows(client, schema);
  const who = {
    participantIds: request.participantIds,
    userIds: request.userIds,
    names: request.names,
    ...(request.companyId === undefined ? {} : { companyId: request.companyId }),
  };
  const earlier = ledger.pseudonymFor(who);
  const subject: ErasureSubject = { ...who, pseudonym: earlier ?? newPseudonym() };
  const erasure = randomUUID();
  const nameKeys =
    write && request.names.length > 0
      ? new ErasureLedger([], await ensureNameKeyRow(client, schema)).nameKeysOf(request.names)
      : [];
  const entry = (state: ErasureEntry['state'], counts?: Record<string, number>): ErasureEntry => ({
    erasure,
    state,
    at: now().toISOString(),
    pseudonym: subject.pseudonym,
    participantIds: subject.participantIds,
    userIds: subject.userIds,
    typedNames: subject.names.length,
    ...(nameKeys.length === 0 ? {} : { nameKeys }),
    ...(subject.companyId === undefined ? {} : { companyId: subject.companyId }),
    ...(counts === undefined ? {} : { counts }),
  });
  if (write) await writeErasureEntry(client, schema, entry('started'));
  const beside = await besideSchemas(client, schema);
  // The bulk of the work, up to the last position now, while appends go on.
  const high = Number(
    (
      await client.query<{ high: string | null }>(
        `SELECT max(position) AS high FROM ${schema}.events`,
      )
    ).rows[0]?.high ?? 0,
  );
  const upToHigh = { after: 0, upTo: high };
  let found = await namesInEvents(client, schema, subject, upToHigh);
  let names: NamesToErase = { typed: storedForms(request.names), found: storedForms(found) };
  let events = await eraseEvents(client, schema, subject, names, upToHigh, write);
  if (write) {
    // The fence (see the file comment): no batch that read events before T commits after it, and
    // those that committed before it are seen by the rewrites below.
    for (const fenced of [schema, beside.rebuild]) {
      if (fenced !== undefined)
        await client.query(`UPDATE ${fenced}.partitions SET epoch = epoch + 1`);
    }
  }
  const tables = [
    { at: schema, live: true, label: '' },
    { at: beside.rebuild, live: false, label: `${beside.rebuild}.` },
    { at: beside.retired, live: false, label: `${beside.retired}.` },
  ];
  const tableCounts: Record<string, number> = {};
  const eraseAllTables = async (): Promise<void> => {
    const erasing = { subject, names, events: events.rows };
    for (const { at, live, label } of tables) {
      if (at === undefined) continue;
      const changed = await eraseTables(client, at, live, erasing, write);
      for (const [table, n] of Object.entries(changed)) {
        tableCounts[`${label}${table}`] = (tableCounts[`${label}${table}`] ?? 0) + n;
      }
    }
  };
  await eraseAllTables();
  if (write) {
    // Then no append commits until T does: the events stored since are erased too, and an append
    // that waits for the lock sees the ledger entries of T (erased-appends.ts).
    await client.query(`SELECT ${appendLockSql(schema)}`);
    // T reads its own started entry: the others' decide whether the person was forgotten meanwhile.
    const current = (await readLedgerRows(client, schema)).ledger;
    const others = current.entries.filter((other) => other.erasure !== erasure);
    if (new ErasureLedger(others, current.nameKey).pseudonymFor(who) !== earlier) {
      // Another forget of the same person committed meanwhile: try again, with its pseudonym.
      throw Object.assign(new Error('another forget of the same person committed'), {
        code: '40001',
      });
    }
    const since = { after: high };
    const more = (await namesInEvents(client, schema, subject, since)).filter(
      (n) => !found.includes(n),
    );
    if (more.length > 0) {
      // A new spelling of the person arrived meanwhile: every event may hold it in free text.
      found = [...found, ...more];
      names = { typed: names.typed, found: storedForms(found) };
      const again = await eraseEvents(client, schema, subject, names, { after: 0 }, write);
      events = {
        rows: new Map([...events.rows, ...again.rows]),
        events: events.events + again.events,
        badLines: events.badLines + again.badLines,
      };
      await eraseAllTables();
    } else {
      const tail = await eraseEvents(client, schema, subject, names, since, write);
      events = {
        rows: new Map([...events.rows, ...tail.rows]),
        events: events.events + tail.events,
        badLines: events.badLines + tail.badLines,
      };
    }
  }
  const sameName = await participantsNamedInEvents(client, schema, subject, found);
  const counts: Record<string, number> = {
    events: events.events,
    'bad lines': events.badLines,
    ...tableCounts,
  };
  if (write) await writeErasureEntry(client, schema, entry('done', counts));
  return {
    erasure,
    pseudonym: subject.pseudonym,
    reused: earlier !== undefined,
    dryRun: request.dryRun,
    participantIds: subject.participantIds,
    userIds: subject.userIds,
    typedNames: subject.names.length,
    ...(subject.companyId === undefined ? {} : { companyId: subject.companyId }),
    foundNames: found.length,
    sameNameParticipantIds: sameName,
    counts,
    remaining: [],
    notes: [
      ...(write && beside.rebuild !== undefined
        ? [`the rebuild in progress in ${beside.rebuild} was rewritten too`]
        : []),
      ...(write
        ? [
            'the old row versions stay in the table files until VACUUM FULL (forget --vacuum), and in the WAL, its archives, backups and replicas: see docs/privacy.md',
          ]
        : []),
    ],
  };
};

/** One try of T: the report, `undefined` when T gave way on a lock (rolled back), or an error. */
const tryOnce = async (
  pool: SqlPool,
  schema: SchemaName,
  request: ForgetRequest,
  now: () => Date,
): Promise<Result<ForgetReport | undefined, PostgresError>> => {
  let client: SqlPoolClient;
  try {
    client = await checkOut(pool);
  } catch (cause) {
    return err(databaseError(cause, 'connecting to PostgreSQL'));
  }
  let broken: Error | true | undefined;
  try {
    await client.query(
      `BEGIN; SET LOCAL lock_timeout = ${LOCK_TRY_MS}; SET LOCAL synchronous_commit = on`,
    );
    const report = await forgetIn({ client, schema, request, now });
    await client.query(request.dryRun ? 'ROLLBACK' : 'COMMIT');
    return ok(report);
  } catch (cause) {
    broken = await rollBack(client, cause);
    const code = sqlState(cause);
    if (code !== undefined && GAVE_WAY.has(code)) {
      broken = undefined;
      return ok(undefined);
    }
    return err(databaseError(cause, `forgetting in schema ${schema}`));
  } finally {
    client.release(broken);
  }
};

/**
 * Forgets the person `request` names in the store of `options.schema` (see
 * the file comment): every stored name of theirs replaced by a pseudonym
 * (that of an earlier erasure of one of the ids, else a new one), the
 * erasure recorded in the ledger. With `request.dryRun`, counts what would
 * change and writes nothing (the report's erasure id is made up). Errors:
 * the schema's (missing, too old), `database` (refused, unreachable, or
 * locks not granted within `lockTimeoutMs`).
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { forgetPostgres, migrate } from 'signfold/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const migrated = await migrate(pool);
 * if (migrated.isErr()) throw new Error(migrated.error.message);
 * const forgotten = await forgetPostgres(pool, {
 *   participantIds: [7],
 *   userIds: [],
 *   names: [],
 *   dryRun: false,
 * });
 * if (forgotten.isErr()) throw new Error(forgotten.error.message);
 * console.log(forgotten.value.pseudonym.startsWith('forgotten-')); // true
 * await pool.end();
 * ```
 */
export const forgetPostgres = async (
  pool: SqlPool,
  request: ForgetRequest,
  options: ForgetPostgresOptions = {},
): Promise<Result<ForgetReport, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    const boundMs = options.lockTimeoutMs ?? 30_000;
    if (!Number.isSafeInteger(boundMs) || boundMs < 0) {
      return err<never, PostgresError>({
        kind: 'invalid-option',
        message: `lockTimeoutMs must be a non-negative integer (got ${boundMs})`,
      });
    }
    if (request.participantIds.length + request.userIds.length + request.names.length === 0) {
      return err<never, PostgresError>({
        kind: 'invalid-option',
        message: 'say whom to forget: a participant id, a user id or a name',
      });
    }
    yield* await checkSchema(pool, schema);
    const now = options.now ?? (() => new Date());
    const deadline = performance.now() + boundMs;
    for (let tries = 1; ; tries += 1) {
      const tried = yield* await tryOnce(pool, schema, request, now);
      if (tried !== undefined) return ok(tried);
      if (performance.now() >= deadline) {
        return err<never, PostgresError>({
          kind: 'database',
          code: '55P03',
          retryable: true,
          message: `forgetting in schema ${schema}: the locks it needs (appends, projection partitions, effects) were not free within ${boundMs / 1000} s (${tries} tries); nothing was changed: try again`,
        });
      }
      await sleep(50 + Math.random() * 150);
    }
  });
