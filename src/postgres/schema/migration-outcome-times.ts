/**
 * Schema version 9: the views' outcome times. `sign_requests` gets
 * `completed_at`, `declined_at`, `deleted_at` and `outcome_from`;
 * `participants` gets `signed_at`, `declined_at` and `outcome_from`
 * (`'event'` or `'observation'`: what set the outcome time). Rows projected
 * before the migration keep NULL until `pg rebuild` folds them again: the
 * times are in the stored events, not in the rows, and a migration that
 * replayed them would hold the schema's lock for as long as a rebuild.
 */
import type { SchemaName } from '../schema-name.js';

/** Version 9 (see the file comment). */
export const version9 = (s: SchemaName): string => `
ALTER TABLE ${s}.sign_requests
  ADD COLUMN completed_at timestamptz,
  ADD COLUMN declined_at timestamptz,
  ADD COLUMN deleted_at timestamptz,
  ADD COLUMN outcome_from text CHECK (outcome_from IN ('event', 'observation'));
ALTER TABLE ${s}.participants
  ADD COLUMN signed_at timestamptz,
  ADD COLUMN declined_at timestamptz,
  ADD COLUMN outcome_from text CHECK (outcome_from IN ('event', 'observation'));
`;
