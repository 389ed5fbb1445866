import { err, ok, type Result } from 'neverthrow';
import type { PostgresError } from './postgres-error.js';

/** The schema signfold uses unless told otherwise. */
export const DEFAULT_SCHEMA = 'signfold';

/** A schema name checked to be a plain lower-case identifier, safe to write into SQL unquoted. */
export type SchemaName = string & { readonly __schemaName: true };

// Unquoted identifiers only: no quoting rules to get wrong, no case folding surprises.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Validates a schema name (default {@link DEFAULT_SCHEMA}). */
export const schemaName = (name: string | undefined): Result<SchemaName, PostgresError> => {
  const value = name ?? DEFAULT_SCHEMA;
  if (typeof value === 'string' && IDENTIFIER.test(value) && !value.startsWith('pg_')) {
    return ok(value as SchemaName);
  }
  return err({
    kind: 'invalid-option',
    message: `schema must be a lower-case identifier (letters, digits, _; at most 63; not pg_…), got ${JSON.stringify(value)}`,
  });
};
