/**
 * A forget on the tables that hold text taken from events: the projection
 * tables (and the private template copies of the partitions), the
 * quarantine, the effects of reactors, the skip reasons and the last errors
 * of partitions. A projection row is read as the record it was folded
 * from (its id and name columns under the members of an event, or of an
 * observation for a participant), and the core rule (`recordErasures`)
 * decides, so a row ends as the fold of the rewritten events would make it.
 * Text with no member to read (messages, raw bad lines, errors) is erased
 * as text (`eraseInText`), and JSON whose shape signfold does not know
 * (effects, fields) as JSON (`eraseInJson`).
 */

import { OBSERVATION_RECORD } from '../../core/observations/observation.js';
import { eraseInJson } from '../../core/privacy/erase-in-json.js';
import { eraseInText, type NamesToErase } from '../../core/privacy/erase-in-text.js';
import type { ErasureSubject } from '../../core/privacy/erasure-subject.js';
import { recordErasures } from '../../core/privacy/record-erasures.js';
import { jsonPathKey } from '../../core/privacy/rewrite-json-strings.js';
import { previewRaw } from '../../engine/quarantine.js';
import { sqlText } from '../event-routing.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';
import type { RewrittenEvent } from './forget-events.js';
import { pagedRows, type RowColumn, updateRows } from './forget-rows.js';
import { nameCondition, nameFilterOf } from './name-filter.js';

type Row = Record<string, unknown>;

/** What one table is read and rewritten by. */
interface TableRule {
  readonly table: string;
  readonly key: readonly RowColumn[];
  /** The columns rewritten (read under their own names). */
  readonly columns: readonly RowColumn[];
  /** More columns read, for the decision only. */
  readonly reads?: readonly string[];
  /** Rows that may hold the subject: id columns matched against its ids (bound here). */
  readonly ids?: { readonly participant?: string; readonly user?: readonly string[] };
  /** The new values of `columns`, in order; `undefined` when the row keeps them. */
  readonly decide: (row: Row) => readonly unknown[] | undefined;
}

/** Everything a rule decides with. */
interface Erasing {
  readonly subject: ErasureSubject;
  readonly names: NamesToErase;
  /** Event rows the forget rewrote, by position (quarantine rows copy their text). */
  readonly events: ReadonlyMap<number, RewrittenEvent>;
}

const id = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

/** The members of a record, without those whose column is NULL. */
const members = (entries: Record<string, unknown>): Row =>
  Object.fromEntries(
    Object.entries(entries).filter(([, value]) => value !== null && value !== undefined),
  );

const text = (value: unknown, e: Erasing): unknown =>
  typeof value === 'string' ? eraseInText(value, e.names, e.subject.pseudonym).text : value;

/** A `json` column's text with names erased inside its strings; kept as it is when nothing changed. */
const jsonText = (value: unknown, e: Erasing): unknown => {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return text(value, e);
  }
  const erased = eraseInJson(parsed, e.names, e.subject.pseudonym);
  return erased.count === 0 ? value : JSON.stringify(erased.value);
};

/** The new values by member, read from `recordErasures` of a record; the old value where none. */
const byRule = (
  record: Row,
  e: Erasing,
  paths: readonly (readonly (string | number)[])[],
  old: readonly unknown[],
): unknown[] => {
  const replacements = recordErasures(record, e.subject, e.names);
  return paths.map((path, i) => replacements.get(jsonPathKey(path)) ?? old[i]);
};

/** `values` when one of them differs from `old`, else `undefined`. */
const changed = (
  old: readonly unknown[],
  values: readonly unknown[],
): readonly unknown[] | undefined =>
  values.some((value, i) => value !== old[i]) ? values : undefined;

const TEXT = (name: string): RowColumn => ({ name, type: 'text' });
const BIGINT = (name: string): RowColumn => ({ name, type: 'bigint' });

const templateRule = (table: string, key: readonly RowColumn[], e: Erasing): TableRule => ({
  table,
  key,
  columns: [TEXT('owner_name'), TEXT('name')],
  reads: ['owner_id', 'company_id'],
  ids: { user: ['owner_id'] },
  decide: (row) => {
    const old = [row.owner_name, row.name];
    const record = members({
      companyId: id(row.company_id),
      ownerId: id(row.owner_id),
      ownerName: row.owner_name,
      templateName: row.name,
    });
    return changed(old, byRule(record, e, [['ownerName'], ['templateName']], old));
  },
});

/** The rules of the projection tables of a schema. */
const projectionRules = (e: Erasing): TableRule[] => [
  templateRule('templates', [BIGINT('id')], e),
  templateRule('partition_templates', [{ name: 'partition', type: 'integer' }, BIGINT('id')], e),
  {
    table: 'sign_requests',
    key: [BIGINT('id')],
    columns: [
      TEXT('owner_name'),
      TEXT('sender_name'),
      TEXT('name'),
      TEXT('template_name'),
      { name: 'fields', type: 'json' },
    ],
    reads: ['owner_id', 'sender_id', 'company_id'],
    ids: { user: ['owner_id', 'sender_id'] },
    decide: (row) => {
      const old = [row.owner_name, row.sender_name, row.name, row.template_name, row.fields];
      const record = members({
        companyId: id(row.company_id),
        ownerId: id(row.owner_id),
        ownerName: row.owner_name,
        senderId: id(row.sender_id),
        senderName: row.sender_name,
        signRequestName: row.name,
        templateName: row.template_name,
      });
      const values = byRule(
        record,
        e,
        [['ownerName'], ['senderName'], ['signRequestName'], ['templateName']],
        old,
      );
      return changed(old, [...values, jsonText(row.fields, e)]);
    },
  },
  {
    table: 'participants',
    key: [BIGINT('sign_request_id'), BIGINT('id')],
    columns: [TEXT('name'), TEXT('email')],
    reads: ['company_id'],
    ids: { participant: 'id' },
    decide: (row) => {
      const old = [row.name, row.email];
      // As the participant of an observation: its name, and its email too.
      const record = members({
        record: OBSERVATION_RECORD,
        companyId: id(row.company_id),
        signRequest: {
          participants: [members({ id: id(row.id), name: row.name, email: row.email })],
        },
      });
      const at = ['signRequest', 'participants', 0];
      return changed(
        old,
        byRule(
          record,
          e,
          [
            [...at, 'name'],
            [...at, 'email'],
          ],
          old,
        ),
      );
    },
  },
  {
    table: 'quarantine',
    key: [BIGINT('position')],
    columns: [TEXT('raw'), TEXT('message'), TEXT('detail')],
    decide: (row) => {
      const old = [row.raw, row.message, row.detail];
      // The raw text of a quarantined record is the start of its stored body (a preview, which
      // may end inside the name): it becomes the preview of the new body.
      const event = e.events.get(Number(row.position));
      const raw =
        event !== undefined && sqlText(previewRaw(event.before)) === row.raw
          ? sqlText(previewRaw(event.after))
          : text(row.raw, e);
      return changed(old, [raw, text(row.message, e), jsonText(row.detail, e)]);
    },
  },
  {
    table: 'partitions',
    key: [{ name: 'partition', type: 'integer' }],
    columns: [TEXT('last_error')],
    decide: (row) => changed([row.last_error], [text(row.last_error, e)]),
  },
];

/** The rules of the tables only the live schema has (events' neighbours, reactors). */
const liveRules = (e: Erasing): TableRule[] => [
  {
    table: 'effects',
    key: [BIGINT('id')],
    columns: [TEXT('key'), { name: 'effect', type: 'json' }, TEXT('last_error')],
    decide: (row) => {
      const old = [row.key, row.effect, row.last_error];
      return changed(old, [text(row.key, e), jsonText(row.effect, e), text(row.last_error, e)]);
    },
  },
  {
    table: 'skipped',
    key: [BIGINT('position')],
    columns: [TEXT('reason')],
    decide: (row) => changed([row.reason], [text(row.reason, e)]),
  },
];

/** Reads the candidate rows of one rule and writes the changed ones; how many changed. */
const eraseTable = async (
  db: SqlQueryable,
  schema: SchemaName,
  rule: TableRule,
  e: Erasing,
  write: boolean,
): Promise<number> => {
  const filter = nameFilterOf([...e.names.typed, ...e.names.found]);
  const asText = (c: RowColumn): Sql =>
    c.type === 'json' ? sql`${sql.id(c.name)}::text` : sql.id(c.name);
  const parts = rule.columns.map((c) => nameCondition(asText(c), filter));
  const { participant, user } = rule.ids ?? {};
  if (participant !== undefined && e.subject.participantIds.length > 0) {
    parts.push(sql`${sql.id(participant)} = ANY(${e.subject.participantIds}::bigint[])`);
  }
  if (user !== undefined && e.subject.userIds.length > 0) {
    for (const column of user) {
      parts.push(sql`${sql.id(column)} = ANY(${e.subject.userIds}::bigint[])`);
    }
  }
  if (rule.table === 'quarantine' && e.events.size > 0) {
    parts.push(sql`position = ANY(${[...e.events.keys()]}::bigint[])`);
  }
  const columns = sql.join([
    ...rule.columns.map((c) =>
      c.type === 'json' ? sql`${asText(c)} AS ${sql.id(c.name)}` : asText(c),
    ),
    ...(rule.reads ?? []).map((name) => sql.id(name)),
  ]);
  const table = sql.id(schema, rule.table);
  let count = 0;
  const pages = pagedRows<Row>(db, {
    table,
    key: rule.key,
    columns,
    where: sql.join(parts, sql` OR `),
  });
  for await (const rows of pages) {
    const updates: unknown[][] = [];
    for (const row of rows) {
      const values = rule.decide(row);
      if (values !== undefined) updates.push([...rule.key.map((k) => row[k.name]), ...values]);
    }
    count += updates.length;
    if (write) await updateRows(db, table, rule.key, rule.columns, updates);
  }
  return count;
};

/** Whether `schema.table` exists (a rebuild or retired schema has only some of the tables). */
const tableExists = async (db: SqlQueryable, schema: string, table: string): Promise<boolean> => {
  const { rows } = await send<{ oid: string | null }>(
    db,
    sql`SELECT to_regclass(${`${schema}.${table}`})::text AS oid`,
  );
  return rows[0]?.oid !== null && rows[0]?.oid !== undefined;
};

/**
 * Rewrites the tables of `schema` that hold text from events (`live`: also
 * effects and skip reasons, which only the live schema has); the number of
 * rows changed by table. `subject`, `names` and `events` as the forget found
 * them. With `write` false, nothing is written.
 */
export const eraseTables = async (
  db: SqlQueryable,
  schema: SchemaName,
  live: boolean,
  erasing: Erasing,
  write: boolean,
): Promise<Record<string, number>> => {
  const counts: Record<string, number> = {};
  const rules = [...projectionRules(erasing), ...(live ? liveRules(erasing) : [])];
  for (const rule of rules) {
    if (!(await tableExists(db, schema, rule.table))) continue;
    counts[rule.table] = await eraseTable(db, schema, rule, erasing, write);
  }
  return counts;
};

export type { Erasing };
