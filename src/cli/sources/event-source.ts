/**
 * Where `report` and `inspect` read events: a log file (`LOG`) or a
 * PostgreSQL event store (`--database URL [--schema NAME]`), as the command
 * line names it. `replay-source.ts` reads it.
 */
import { usageError } from '../cli-error.js';
import type { DATABASE_FLAGS } from '../database-flags.js';
import { checkDatabaseUrl, shownUrl } from '../database-url.js';
import type { ParsedCommand } from '../define-command.js';

/** A log file, or the event table of a PostgreSQL schema. */
export type EventSource =
  | { readonly kind: 'file'; readonly path: string }
  | {
      readonly kind: 'database';
      readonly url: string;
      readonly schema: string | undefined;
      /** `--connect-timeout`, in ms. */
      readonly connectTimeoutMs: number;
    };

/**
 * The source named by the command line: one `LOG` positional, or
 * `--database URL` (with `--schema NAME`, `--connect-timeout SECONDS`) and no positional. Throws a usage
 * error otherwise.
 */
export const eventSourceOf = ({
  values,
  positionals,
  given,
}: ParsedCommand<typeof DATABASE_FLAGS>): EventSource => {
  const { database, schema } = values;
  const [first, second] = positionals;
  if (database === undefined) {
    if (schema !== undefined) throw usageError('--schema needs --database URL');
    if (given('connect-timeout')) throw usageError('--connect-timeout needs --database URL');
    if (first === undefined) throw usageError('missing LOG (or --database URL)');
    if (second !== undefined) throw usageError(`unexpected argument '${second}'`);
    return { kind: 'file', path: first };
  }
  if (first !== undefined) {
    throw usageError(`give LOG or --database URL, not both (got '${first}' and --database)`);
  }
  checkDatabaseUrl(database);
  return { kind: 'database', url: database, schema, connectTimeoutMs: values.connectTimeout };
};

/**
 * The words that name `source` on a command line (`LOG`, or `--database URL
 * [--schema NAME]`), the password left out: it is never shown or written.
 */
export const sourceArgs = (source: EventSource): string[] =>
  source.kind === 'file'
    ? [source.path]
    : [
        '--database',
        shownUrl(source.url),
        ...(source.schema === undefined ? [] : ['--schema', source.schema]),
      ];

/** How messages and the report name `source`: the path, or the URL (no password) and schema. */
export const sourceLabel = (source: EventSource): string =>
  source.kind === 'file'
    ? source.path
    : `${shownUrl(source.url)}${source.schema === undefined ? '' : ` (schema ${source.schema})`}`;
