/**
 * Where a partition keeps its templates. Every partition folds every
 * template event, so each needs the templates as of its own checkpoint:
 * partition 0 keeps them in the `templates` table applications read (it is
 * their only writer), the others in private rows of `partition_templates`.
 */
import type { TemplateView } from '../projections/records.js';
import {
  columnArrays,
  insertSql,
  selectColumnsSql,
  type TableSpec,
  TEMPLATES,
  updateSql,
  viewOfRow,
} from './projection-columns.js';
import type { SchemaName } from './schema-name.js';
import type { SqlQueryable } from './sql-client.js';

/** Reads and writes one partition's templates. */
export interface TemplateRows {
  load(db: SqlQueryable, schema: SchemaName, ids: readonly number[]): Promise<TemplateView[]>;
  insert(db: SqlQueryable, schema: SchemaName, views: readonly TemplateView[]): Promise<void>;
  update(db: SqlQueryable, schema: SchemaName, views: readonly TemplateView[]): Promise<void>;
}

type ScopedTemplate = TemplateView & { readonly partition: number };

const PARTITION_TEMPLATES: TableSpec<ScopedTemplate> = {
  table: 'partition_templates',
  key: ['partition', 'id'],
  columns: [
    { name: 'partition', member: 'partition', type: 'integer', optional: false },
    ...(TEMPLATES.columns as TableSpec<ScopedTemplate>['columns']),
  ],
};

/** The templates table itself (partition 0, and the single-partition schema). */
const publicTemplates: TemplateRows = {
  async load(db, schema, ids) {
    const { rows } = await db.query<Record<string, unknown>>(
      `${selectColumnsSql(TEMPLATES, schema)} WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    return rows.map((row) => viewOfRow(TEMPLATES, row));
  },
  async insert(db, schema, views) {
    await db.query(insertSql(TEMPLATES, schema), columnArrays(TEMPLATES, views));
  },
  async update(db, schema, views) {
    await db.query(updateSql(TEMPLATES, schema), columnArrays(TEMPLATES, views));
  },
};

const privateTemplates = (partition: number): TemplateRows => {
  const scoped = (views: readonly TemplateView[]): ScopedTemplate[] =>
    views.map((view) => ({ ...view, partition }));
  return {
    async load(db, schema, ids) {
      const { rows } = await db.query<Record<string, unknown>>(
        `${selectColumnsSql(PARTITION_TEMPLATES, schema)} WHERE partition = $2 AND id = ANY($1::bigint[])`,
        [ids, partition],
      );
      return rows.map((row) => viewOfRow(TEMPLATES, row));
    },
    async insert(db, schema, views) {
      const spec = PARTITION_TEMPLATES;
      await db.query(insertSql(spec, schema), columnArrays(spec, scoped(views)));
    },
    async update(db, schema, views) {
      const spec = PARTITION_TEMPLATES;
      await db.query(updateSql(spec, schema), columnArrays(spec, scoped(views)));
    },
  };
};

/** The template rows of a partition. */
export const templateRowsOf = (partition: number): TemplateRows =>
  partition === 0 ? publicTemplates : privateTemplates(partition);
