/**
 * Where a partition keeps its templates. Every partition folds every
 * template event, so each needs the templates as of its own checkpoint:
 * partition 0 keeps them in the `templates` table applications read (it is
 * their only writer), the others in private rows of `partition_templates`.
 */
import type { TemplateView } from '../../core/projections/records.js';
import { sql } from '../sql/sql.js';
import { selectColumnsSql, type TableSpec, TEMPLATES } from '../tables/projection-columns.js';
import type { TemplateRows } from '../tables/projection-tables.js';
import { writeStatements } from '../tables/projection-tables.js';

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
  selectSql: (schema, ids) =>
    sql`${selectColumnsSql(TEMPLATES, schema)} WHERE id = ANY(${ids}::bigint[])`,
  writes: (schema, changes) => writeStatements(schema, TEMPLATES, changes),
};

const privateTemplates = (partition: number): TemplateRows => {
  const scoped = (views: readonly TemplateView[]): ScopedTemplate[] =>
    views.map((view) => ({ ...view, partition }));
  return {
    selectSql: (schema, ids) =>
      sql`${selectColumnsSql(PARTITION_TEMPLATE_VIEWS, schema)}
        WHERE partition = ${partition} AND id = ANY(${ids}::bigint[])`,
    writes: (schema, { created, firstPositions, updated }) =>
      writeStatements(schema, PARTITION_TEMPLATES, {
        created: scoped(created),
        firstPositions,
        updated: scoped(updated),
      }),
  };
};

/** The template rows of a partition. */
export const templateRowsOf = (partition: number): TemplateRows =>
  partition === 0 ? publicTemplates : privateTemplates(partition);
