/**
 * A PostgreSQL store where one person's unique name sits in every kind of
 * place (events as participant, sender and owner, titles, a bad line, an
 * invalid event, the quarantine, the projection tables, an effect that copies
 * the name and the effect's last error), and the checks of a forget: which
 * columns of which rows still hold a text, `pg_dump` of a schema, and the
 * events a forget must leave (the originals with the core rule applied).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type pg from 'pg';
import { eraseInText } from '../../src/core/privacy/erase-in-text.js';
import type { ErasureSubject } from '../../src/core/privacy/erasure-subject.js';
import { namesHeldBy, recordErasures } from '../../src/core/privacy/record-erasures.js';
import { rewriteJsonStrings } from '../../src/core/privacy/rewrite-json-strings.js';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { importRecords } from '../../src/postgres/import-events.js';
import { openPostgresEventLog } from '../../src/postgres/postgres-event-log.js';
import { createProjectionWorker } from '../../src/postgres/projection-worker.js';

/** The person: a name found nowhere else, a participant id and a user id. */
export const NAME = 'Zyxwvut Qlmnopr';
/** A part of {@link NAME}: a preview cut inside the name must not keep it either. */
export const NAME_PART = 'Zyxwv';
export const PARTICIPANT = 7001;
export const USER = 9001;
const OTHER: [number, string] = [9002, 'Grace Hopper'];

/** A participant event of the service's shape (`partcipantName`). */
export const participantEvent = (
  type: string,
  request: number,
  title: string,
  participant: [number, string],
  by: [number, string] = OTHER,
) => ({
  type,
  companyId: 1,
  signRequestId: request,
  signRequestName: title,
  templateId: 11,
  templateName: 'Mutual NDA',
  participantId: participant[0],
  partcipantName: participant[1],
  roleId: 1,
  roleName: 'Signer',
  senderId: by[0],
  senderName: by[1],
  ownerId: by[0],
  ownerName: by[1],
});

const sent = (request: number, title: string, by: [number, string]) => ({
  type: 'sign-request-sent',
  companyId: 1,
  signRequestId: request,
  signRequestName: title,
  templateId: 11,
  templateName: 'Mutual NDA',
  senderId: by[0],
  senderName: by[1],
  ownerId: by[0],
  ownerName: by[1],
});

/** Events where `name` is participant `participant`, sender and owner `user`, and in titles. */
export const storyEvents = (name = NAME, participant = PARTICIPANT, user = USER): unknown[] => {
  const them: [number, string] = [user, name];
  const title = `NDA - ${name}`;
  const person: [number, string] = [participant, name];
  return [
    {
      type: 'template-activated',
      companyId: 1,
      templateId: 11,
      templateName: 'Mutual NDA',
      ownerId: user,
      ownerName: name,
    },
    sent(100, title, OTHER),
    participantEvent('participant-sent', 100, title, person),
    participantEvent('participant-viewed', 100, title, person),
    participantEvent('participant-sent', 100, title, [7002, 'Alan Turing']),
    sent(200, 'Lease', them),
    participantEvent('participant-sent', 200, 'Lease', [7003, 'Barbara Liskov'], them),
    participantEvent('participant-signed', 200, 'Lease', [7003, 'Barbara Liskov'], them),
    // Invalid (the sign request id is a string): quarantined with its raw text.
    { ...participantEvent('participant-signed', 300, 'x', person), signRequestId: 'x' },
  ];
};

/** A reactor that copies the participant's name into its effect (and its error). */
export const copier = defineReactor({
  name: 'copier',
  retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  react: ({ event }) =>
    event.type === 'participant-sent'
      ? [{ type: 'greet', text: `Hello ${event.participantName}`, to: event.participantName }]
      : [],
  execute: async (effect) => {
    throw new Error(`cannot greet ${(effect as unknown as { to: string }).to}`);
  },
});

/**
 * Fills the migrated `schema` with {@link storyEvents} (delivery ids `d-N`),
 * a bad line holding the name, and projects it with {@link copier}; the
 * effects end parked with an error that names the person.
 */
export const fillStore = async (
  pool: pg.Pool,
  schema: string,
  events: readonly unknown[] = storyEvents(),
  badLine = `{"type":"participant-sent","partcipantName":"${NAME}",`,
): Promise<void> => {
  const log = (await openPostgresEventLog(pool, { schema }))._unsafeUnwrap();
  for (const [i, event] of events.entries()) {
    (await log.append(event, { deliveryId: `d-${i + 1}` }))._unsafeUnwrap();
  }
  await log.close();
  const bad: LogRecord = {
    kind: 'bad-line',
    position: 1,
    line: 1,
    raw: badLine,
    reason: 'invalid JSON',
  };
  async function* records(): AsyncGenerator<readonly LogRecord[]> {
    yield [bad];
  }
  (await importRecords(pool, records(), { schema }))._unsafeUnwrap();
  const worker = (
    await createProjectionWorker(pool, { schema, batchSize: 3, reactors: [copier] })
  )._unsafeUnwrap();
  (await worker.drain())._unsafeUnwrap();
  await pool.query(
    `UPDATE ${schema}.effects SET last_error = 'cannot greet ' || (effect->>'to'), state = 'parked'`,
  );
};

/** Every `table.column: value` of the base tables of `schema` whose text holds one of `texts`. */
export const rowsHolding = async (
  pool: pg.Pool,
  schema: string,
  texts: readonly string[],
): Promise<string[]> => {
  const { rows: columns } = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns AS c
       JOIN information_schema.tables AS t USING (table_schema, table_name)
      WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE'`,
    [schema],
  );
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const { rows } = await pool.query<{ v: string | null }>(
      `SELECT "${column_name}"::text AS v FROM ${schema}.${table_name}`,
    );
    for (const { v } of rows) {
      if (v !== null && texts.some((text) => v.includes(text))) {
        found.push(`${table_name}.${column_name}: ${v.slice(0, 120)}`);
      }
    }
  }
  return found;
};

/** `pg_dump --schema=schema` of the database at `url` (data and definitions), as text. */
export const pgDump = (url: string, schema: string): string => {
  const dirs = [
    ...(process.env.SIGNFOLD_PG_BIN === undefined ? [] : [process.env.SIGNFOLD_PG_BIN]),
    '/usr/local/bin',
    ...['17', '16', '15', '14'].map((v) => `/usr/lib/postgresql/${v}/bin`),
  ];
  for (const dir of dirs) {
    try {
      const dump = execFileSync(join(dir, 'pg_dump'), ['--schema', schema, url], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // Newer pg_dumps fence the script with a random key: not part of the data.
      return dump.replace(/^\\(un)?restrict .*$/gm, '');
    } catch (cause) {
      if ((cause as { code?: string }).code !== 'ENOENT') throw cause;
    }
  }
  throw new Error('pg_dump not found beside the PostgreSQL server binaries');
};

/** An events row as stored. */
export interface StoredEventRow {
  readonly position: string;
  readonly delivery_id: string | null;
  readonly received_at: Date | null;
  readonly body: string;
  readonly bad_line: string | null;
}

/** The events rows of `schema`, in position order. */
export const storedEventRows = async (pool: pg.Pool, schema: string): Promise<StoredEventRow[]> =>
  (
    await pool.query<StoredEventRow>(
      `SELECT position, delivery_id, received_at, body, bad_line FROM ${schema}.events ORDER BY position`,
    )
  ).rows;

const parsed = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

/**
 * `rows` as a forget of `subject` must leave them, computed from the core
 * rule alone: the names the ids hold collected first, then each event
 * rewritten by `recordErasures` and each bad line by `eraseInText`.
 */
export const forgottenRows = (
  rows: readonly StoredEventRow[],
  subject: ErasureSubject,
  storedForm: (name: string) => string = (name) => name,
): StoredEventRow[] => {
  const found = [
    ...new Set(
      rows.flatMap((row) => (row.bad_line === null ? namesHeldBy(parsed(row.body), subject) : [])),
    ),
  ].filter((name) => name !== '');
  const forms = (names: readonly string[]) => [
    ...new Set(names.flatMap((n) => [n, storedForm(n)])),
  ];
  const names = { typed: forms(subject.names), found: forms(found) };
  return rows.map((row) => {
    const value = row.bad_line === null ? parsed(row.body) : undefined;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return {
        ...row,
        body: rewriteJsonStrings(row.body, recordErasures(value, subject, names)).text,
      };
    }
    return {
      ...row,
      body: eraseInText(row.body, names, subject.pseudonym).text,
      bad_line:
        row.bad_line === null ? null : eraseInText(row.bad_line, names, subject.pseudonym).text,
    };
  });
};

/** `rows` as a file log: envelopes for events, bad lines as their raw text. */
export const logLines = (rows: readonly StoredEventRow[]): string =>
  `${rows
    .map((row) =>
      row.bad_line !== null
        ? row.body
        : JSON.stringify({
            position: Number(row.position),
            ...(row.received_at === null ? {} : { receivedAt: row.received_at.toISOString() }),
            ...(row.delivery_id === null ? {} : { deliveryId: row.delivery_id }),
            event: JSON.parse(row.body),
          }),
    )
    .join('\n')}\n`;
