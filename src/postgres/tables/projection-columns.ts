/**
 * How each projection record maps to its table: one list of columns per
 * table drives the SELECT, the upsert and both conversions, so a view and
 * its row cannot drift apart. Optional view members are NULL when absent.
 */
import type {
  ParticipantView,
  SignRequestView,
  TemplateView,
} from '../../core/projections/records.js';
import { sqlText } from '../event-routing.js';
import { FIRST_POSITION } from '../schema/migration-first-seen.js';
import { type Sql, sql } from '../sql/sql.js';

type SqlType = 'bigint' | 'integer' | 'text' | 'boolean' | 'json' | 'timestamptz';

interface Column<View> {
  readonly name: string;
  readonly member: keyof View & string;
  readonly type: SqlType;
  /** Absent from the view when NULL (otherwise NULL means `null`). */
  readonly optional: boolean;
}

/** A projection table: its name, key columns and every column. */
export interface TableSpec<View> {
  readonly table: string;
  readonly key: readonly string[];
  readonly columns: readonly Column<View>[];
}

const col = <View>(
  name: string,
  member: keyof View & string,
  type: SqlType,
  optional = false,
): Column<View> => ({ name, member, type, optional });

/** The templates table. */
export const TEMPLATES: TableSpec<TemplateView> = {
  table: 'templates',
  key: ['id'],
  columns: [
    col('id', 'id', 'bigint'),
    col('company_id', 'companyId', 'bigint'),
    col('name', 'name', 'text'),
    col('owner_id', 'ownerId', 'bigint'),
    col('owner_name', 'ownerName', 'text'),
    col('status', 'status', 'text'),
  ],
};

/** The sign_requests table. */
export const SIGN_REQUESTS: TableSpec<SignRequestView> = {
  table: 'sign_requests',
  key: ['id'],
  columns: [
    col('id', 'id', 'bigint'),
    col('company_id', 'companyId', 'bigint'),
    col('name', 'name', 'text'),
    col('status', 'status', 'text'),
    col('deleted', 'deleted', 'boolean'),
    col('owner_id', 'ownerId', 'bigint', true),
    col('owner_name', 'ownerName', 'text', true),
    col('sender_id', 'senderId', 'bigint', true),
    col('sender_name', 'senderName', 'text', true),
    col('template_id', 'templateId', 'bigint', true),
    col('template_name', 'templateName', 'text', true),
    col('form_type', 'formType', 'text', true),
    col('saved_time', 'savedTime', 'text', true),
    col('fields', 'fields', 'json', true),
    col('sent_at', 'sentAt', 'timestamptz'),
    col('completed_at', 'completedAt', 'timestamptz'),
    col('declined_at', 'declinedAt', 'timestamptz'),
    col('deleted_at', 'deletedAt', 'timestamptz'),
    col('outcome_from', 'outcomeFrom', 'text'),
    col('last_event_at', 'lastEventAt', 'timestamptz'),
  ],
};

/** The participants table. */
export const PARTICIPANTS: TableSpec<ParticipantView> = {
  table: 'participants',
  key: ['sign_request_id', 'id'],
  columns: [
    col('sign_request_id', 'signRequestId', 'bigint'),
    col('id', 'id', 'bigint'),
    col('company_id', 'companyId', 'bigint'),
    col('name', 'name', 'text'),
    col('status', 'status', 'text'),
    col('view_count', 'viewCount', 'integer'),
    col('download_count', 'downloadCount', 'integer'),
    col('role_id', 'roleId', 'bigint', true),
    col('role_name', 'roleName', 'text', true),
    col('sequence', 'sequence', 'integer', true),
    col('email', 'email', 'text', true),
    col('sent_at', 'sentAt', 'timestamptz'),
    col('viewed_at', 'viewedAt', 'timestamptz'),
    col('signed_at', 'signedAt', 'timestamptz'),
    col('declined_at', 'declinedAt', 'timestamptz'),
    col('outcome_from', 'outcomeFrom', 'text'),
    col('last_event_at', 'lastEventAt', 'timestamptz'),
  ],
};

const ARRAY_TYPE: Readonly<Record<SqlType, Sql>> = {
  bigint: sql`bigint[]`,
  integer: sql`integer[]`,
  text: sql`text[]`,
  boolean: sql`boolean[]`,
  json: sql`text[]`,
  timestamptz: sql`timestamptz[]`,
};

const namesOf = (names: readonly string[]): Sql => sql.join(names.map((name) => sql.id(name)));

/** `SELECT` of every column (bigints come back as strings: ids may exceed 2³¹). */
export const selectColumnsSql = <View>(spec: TableSpec<View>, schema: string): Sql =>
  sql`SELECT ${namesOf(spec.columns.map((c) => c.name))} FROM ${sql.id(schema, spec.table)}`;

/** The column arrays of `views`, each cast to its column's array type. */
const unnestOf = <View>(spec: TableSpec<View>, views: readonly View[]): Sql[] =>
  columnArrays(spec, views).map((values, i) => {
    const type = spec.columns[i]?.type ?? 'text';
    return sql`${values}::${ARRAY_TYPE[type]}`;
  });

/**
 * Inserts `views` as new rows, given as one array per column, with their
 * `first_position` (`firstPositions`, index for index), which no view holds
 * and no update rewrites: a record is created once.
 */
export const insertSql = <View>(
  spec: TableSpec<View>,
  schema: string,
  views: readonly View[],
  firstPositions: readonly number[],
): Sql => {
  const names = namesOf([...spec.columns.map((c) => c.name), FIRST_POSITION]);
  const arrays = [...unnestOf(spec, views), sql`${firstPositions}::bigint[]`];
  return sql`INSERT INTO ${sql.id(schema, spec.table)} (${names})
    SELECT * FROM unnest(${sql.join(arrays)})`;
};

/**
 * Rewrites the existing rows of `views`, given as one array per column.
 * Cheaper than an upsert: the worker knows which records it loaded and
 * which it created.
 */
export const updateSql = <View>(
  spec: TableSpec<View>,
  schema: string,
  views: readonly View[],
): Sql => {
  const names = spec.columns.map((c) => c.name);
  const sets = names
    .filter((n) => !spec.key.includes(n))
    .map((n) => sql`${sql.id(n)} = ${sql.id('u', n)}`);
  const match = spec.key.map((k) => sql`${sql.id('t', k)} = ${sql.id('u', k)}`);
  return sql`UPDATE ${sql.id(schema, spec.table)} AS t SET ${sql.join(sets)}
    FROM unnest(${sql.join(unnestOf(spec, views))}) AS u(${namesOf(names)})
   WHERE ${sql.join(match, sql` AND `)}`;
};

const toSql = (type: SqlType, value: unknown): unknown => {
  if (value === undefined || value === null) return null;
  if (type === 'text') return sqlText(value as string);
  if (type === 'json') return sqlText(JSON.stringify(value));
  return value;
};

/** The column arrays of `views`, one per column, as {@link insertSql} and {@link updateSql} send them. */
export const columnArrays = <View>(spec: TableSpec<View>, views: readonly View[]): unknown[][] =>
  spec.columns.map((c) => views.map((view) => toSql(c.type, view[c.member])));

const fromSql = (type: SqlType, value: unknown): unknown => {
  if (type === 'bigint') return Number(value);
  if (type === 'json') return JSON.parse(value as string) as unknown;
  // The views hold receivedAt as the logs write it (Date#toISOString).
  if (type === 'timestamptz') return (value as Date).toISOString();
  return value;
};

/** The view of a row (`bigint` strings become numbers; NULL optionals are left out). */
export const viewOfRow = <View>(spec: TableSpec<View>, row: Record<string, unknown>): View => {
  const view: Record<string, unknown> = {};
  for (const c of spec.columns) {
    const value = row[c.name];
    if (value === null || value === undefined) {
      if (!c.optional) view[c.member] = null;
      continue;
    }
    view[c.member] = fromSql(c.type, value);
  }
  return view as View;
};
