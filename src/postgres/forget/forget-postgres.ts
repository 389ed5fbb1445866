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
 *    (batch-write.ts), so a batch that read events before T commits
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
import { appendLock } from '../schema/migrations.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import { checkOut, rollBack, type SqlPool, type SqlPoolClient } from '../sql-client.js';
import { ensureNameKeyRow } from './erasure-key-rows.js';
import { readLedgerRows, writeErasureEntry } from './erasure-rows.js';
import {
  type ErasedEvents,
  eraseEvents,
  namesInEvents,
  participantsNamedInEvents,
} from './forget-events.js';
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
  const { rows } = await send<{ nspname: string }>(
    client,
    sql`SELECT nspname FROM pg_namespace WHERE nspname = ANY(${[rebuild, retired]}::text[])`,
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

/** A try of T once it knows whom it forgets, and where. */
interface Forget extends Try {
  /** Not a dry run. */
  readonly write: boolean;
  /** The person as the request names them, for the ledger's pseudonym. */
  readonly who: Omit<ErasureSubject, 'pseudonym'>;
  /** The pseudonym an earlier forget of the person gave them, if any. */
  readonly earlier: string | undefined;
  readonly subject: ErasureSubject;
  /** This erasure's id in the ledger. */
  readonly erasure: string;
  /** The ledger entry of this erasure in `state`. */
  readonly entry: (state: ErasureEntry['state'], counts?: Record<string, number>) => ErasureEntry;
  readonly beside: { readonly rebuild?: SchemaName; readonly retired?: SchemaName };
}

/** What T found and rewrote so far. */
interface Progress {
  /** The names the forgotten ids were stored with. */
  found: string[];
  names: NamesToErase;
  events: ErasedEvents;
  /** Rows rewritten per table (`schema.table` for the schemas beside the live one). */
  readonly tableCounts: Record<string, number>;
}

/** Whom T forgets: the subject, its pseudonym (an earlier forget's, or a new one) and its ledger entries. */
const startForget = async (t: Try): Promise<Forget> => {
  const { client, schema, request, now } = t;
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
  const beside = await besideSchemas(client, schema);
  return { ...t, write, who, earlier, subject, erasure, entry, beside };
};

/** The events that now hold the names, `more` before `events`, counted together. */
const together = (events: ErasedEvents, more: ErasedEvents): ErasedEvents => ({
  rows: new Map([...events.rows, ...more.rows]),
  events: events.events + more.events,
  badLines: events.badLines + more.badLines,
});

/**
 * The fence (see the file comment): no batch that read events before T
 * commits after it, and those that committed before it are seen by the
 * rewrites of the tables that follow.
 */
const fenceWorkers = async ({ client, schema, beside }: Forget): Promise<void> => {
  for (const fenced of [schema, beside.rebuild]) {
    if (fenced !== undefined) {
      await send(client, sql`UPDATE ${sql.id(fenced, 'partitions')} SET epoch = epoch + 1`);
    }
  }
};

/** Rewrites the tables of the live schema and of those beside it, adding to the counts. */
const eraseAllTables = async (f: Forget, progress: Progress): Promise<void> => {
  const { beside } = f;
  const tables = [
    { at: f.schema, live: true, label: '' },
    { at: beside.rebuild, live: false, label: `${beside.rebuild}.` },
    { at: beside.retired, live: false, label: `${beside.retired}.` },
  ];
  const erasing = { subject: f.subject, names: progress.names, events: progress.events.rows };
  for (const { at, live, label } of tables) {
    if (at === undefined) continue;
    const changed = await eraseTables(f.client, at, live, erasing, f.write);
    for (const [table, n] of Object.entries(changed)) {
      const counted = `${label}${table}`;
      progress.tableCounts[counted] = (progress.tableCounts[counted] ?? 0) + n;
    }
  }
};

/**
 * Under the append lock, the events stored after `high`: no append commits
 * until T does, so they are erased too, and an append that waits for the
 * lock sees the ledger entries of T (erased-appends.ts).
 */
const eraseTail = async (f: Forget, high: number, progress: Progress): Promise<void> => {
  const { client, schema, subject, write } = f;
  await send(client, sql`SELECT ${appendLock(schema)}`);
  // T reads its own started entry: the others' decide whether the person was forgotten meanwhile.
  const current = (await readLedgerRows(client, schema)).ledger;
  const others = current.entries.filter((other) => other.erasure !== f.erasure);
  if (new ErasureLedger(others, current.nameKey).pseudonymFor(f.who) !== f.earlier) {
    // Another forget of the same person committed meanwhile: try again, with its pseudonym.
    throw Object.assign(new Error('another forget of the same person committed'), {
      code: '40001',
    });
  }
  const since = { after: high };
  const more = (await namesInEvents(client, schema, subject, since)).filter(
    (n) => !progress.found.includes(n),
  );
  if (more.length === 0) {
    const tail = await eraseEvents(client, schema, subject, progress.names, since, write);
    progress.events = together(progress.events, tail);
    return;
  }
  // A new spelling of the person arrived meanwhile: every event may hold it in free text.
  progress.found = [...progress.found, ...more];
  progress.names = { typed: progress.names.typed, found: storedForms(progress.found) };
  const again = await eraseEvents(client, schema, subject, progress.names, { after: 0 }, write);
  progress.events = together(progress.events, again);
  await eraseAllTables(f, progress);
};

/** What T did, as {@link forgetPostgres} reports it. */
const reportOf = (
  f: Forget,
  progress: Progress,
  sameNameParticipantIds: readonly number[],
  counts: Record<string, number>,
): ForgetReport => {
  const { subject, write, beside } = f;
  return {
    erasure: f.erasure,
    pseudonym: subject.pseudonym,
    reused: f.earlier !== undefined,
    dryRun: f.request.dryRun,
    participantIds: subject.participantIds,
    userIds: subject.userIds,
    typedNames: subject.names.length,
    ...(subject.companyId === undefined ? {} : { companyId: subject.companyId }),
    foundNames: progress.found.length,
    sameNameParticipantIds,
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

/** T's statements up to its commit (the caller commits, or rolls back a dry run). */
const forgetIn = async (t: Try): Promise<ForgetReport> => {
  const f = await startForget(t);
  const { client, schema, subject, write } = f;
  if (write) await writeErasureEntry(client, schema, f.entry('started'));
  // The bulk of the work, up to the last position now, while appends go on.
  const newest = await send<{ high: string | null }>(
    client,
    sql`SELECT max(position) AS high FROM ${sql.id(schema, 'events')}`,
  );
  const high = Number(newest.rows[0]?.high ?? 0);
  const upToHigh = { after: 0, upTo: high };
  const found = await namesInEvents(client, schema, subject, upToHigh);
  const names: NamesToErase = { typed: storedForms(t.request.names), found: storedForms(found) };
  const events = await eraseEvents(client, schema, subject, names, upToHigh, write);
  const progress: Progress = { found, names, events, tableCounts: {} };
  if (write) await fenceWorkers(f);
  await eraseAllTables(f, progress);
  if (write) await eraseTail(f, high, progress);
  const sameName = await participantsNamedInEvents(client, schema, subject, progress.found);
  const counts: Record<string, number> = {
    events: progress.events.events,
    'bad lines': progress.events.badLines,
    ...progress.tableCounts,
  };
  if (write) await writeErasureEntry(client, schema, f.entry('done', counts));
  return reportOf(f, progress, sameName, counts);
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
