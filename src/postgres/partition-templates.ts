/**
 * Where a partition keeps its templates. Every partition folds every
 * template event, so each needs the templates as of its own checkpoint:
 * partition 0 keeps them in the `templates` table applications read (it is
 * their only writer), the others in private rows of `partition_templates`.
 */
import type { TemplateView } from '../core/projections/records.js';
import { type TableSpec, TEMPLATES } from './projection-columns.js';
import { type Changes, select, type TemplateRows, write } from './projection-tables.js';
import type { SchemaName } from './schema-name.js';
import type { SqlQueryable } from './sql-client.js';

type ScopedTemplate = TemplateView & { readonly partition: number };

const PARTITION_TEMPLATES: TableSpec<ScopedTemplate> = {
  table: 'partition_templates',
  key: ['partition', 'id'],
  columns: [
    { name: 'partition', member: 'partition', type: 'integer', optional: false },
    ...(TEMPLATES.columns as TableSpec<ScopedTemplate>['columns']),
  ],
};
/** The same rows read as plain templates (without their partition). */
const PARTITION_TEMPLATE_VIEWS: TableSpec<TemplateView> = {
  ...TEMPLATES,
  table: 'partition_templates',
};

/** The templates table itself (partition 0, and the single-partition schema). */
const publicTemplates: TemplateRows = {
  load: (db, schema, ids) => select(db, TEMPLATES, schema, 'WHERE id = ANY($1::bigint[])', [ids]),
  write: (db, schema, changes) => write(db, schema, TEMPLATES, changes),
};

const privateTemplates = (partition: number): TemplateRows => {
  const scoped = (views: readonly TemplateView[]): ScopedTemplate[] =>
    views.map((view) => ({ ...view, partition }));
  return {
    load: (db, schema, ids) =>
      select(
        db,
        PARTITION_TEMPLATE_VIEWS,
        schema,
        'WHERE partition = $2 AND id = ANY($1::bigint[])',
        [ids, partition],
      ),
    write: (db, schema, { created, updated }) =>
      write(db, schema, PARTITION_TEMPLATES, {
        created: scoped(created),
        updated: scoped(updated),
      }),
  };
};

/** The template rows of a partition. */
export const templateRowsOf = (partition: number): TemplateRows =>
  partition === 0 ? publicTemplates : privateTemplates(partition);

/**
 * The templates named for each of several partitions, in at most two
 * queries (partition 0's table and the others' private rows) however many
 * partitions ask.
 */
export const loadTemplatesOfPartitions = async (
  db: SqlQueryable,
  schema: SchemaName,
  idsByPartition: ReadonlyMap<number, readonly number[]>,
): Promise<Map<number, TemplateView[]>> => {
  const found = new Map<number, TemplateView[]>();
  const publicIds = idsByPartition.get(0) ?? [];
  if (publicIds.length > 0) found.set(0, await publicTemplates.load(db, schema, publicIds));
  const partitions: number[] = [];
  const ids: number[] = [];
  for (const [partition, named] of idsByPartition) {
    if (partition === 0) continue;
    for (const id of named) {
      partitions.push(partition);
      ids.push(id);
    }
  }
  if (ids.length === 0) return found;
  const rows = await select(
    db,
    PARTITION_TEMPLATES,
    schema,
    'WHERE (partition, id) IN (SELECT * FROM unnest($1::integer[], $2::bigint[]))',
    [partitions, ids],
  );
  for (const { partition, ...view } of rows) {
    const views = found.get(partition) ?? [];
    views.push(view);
    found.set(partition, views);
  }
  return found;
};

/** Writes the template changes of several partitions, in at most two statements per kind of change. */
export const writeTemplatesOfPartitions = async (
  db: SqlQueryable,
  schema: SchemaName,
  changesByPartition: ReadonlyMap<number, Changes<TemplateView>>,
): Promise<void> => {
  const scoped: Changes<ScopedTemplate> = { created: [], updated: [] };
  for (const [partition, { created, updated }] of changesByPartition) {
    if (partition === 0) {
      await publicTemplates.write(db, schema, { created, updated });
      continue;
    }
    for (const view of created) scoped.created.push({ ...view, partition });
    for (const view of updated) scoped.updated.push({ ...view, partition });
  }
  await write(db, schema, PARTITION_TEMPLATES, scoped);
};
