/** What every `pg` subcommand acts on, as parsed once by `pg-command.ts`. */
import type { SchemaOptions } from '../../postgres/index.js';

/** The parsed options shared by the subcommands. */
export interface PgTarget {
  readonly database: string;
  /** `--schema`, as the adapter's functions take it (empty: the default schema). */
  readonly schemaOptions: SchemaOptions;
}
