/**
 * Schema version 7: the key of the erasure ledger's name hashes. A forget by
 * typed name keeps the name in `erasures` only as its keyed hash
 * (HMAC-SHA-256, see erasure-key-rows.ts); the key is this table's one row,
 * made by the first forget that types a name. It sits in a table of its own,
 * not in the ledger, so that a copy of the ledger (which docs/privacy.md asks
 * operators to keep outside the database) cannot be searched for names.
 */
import type { SchemaName } from '../schema-name.js';

/** Version 7 (see the file comment). */
export const version7 = (s: SchemaName): string => `
CREATE TABLE ${s}.erasure_key (
  one  boolean PRIMARY KEY DEFAULT true CHECK (one),
  key  bytea NOT NULL CHECK (length(key) = 32)
);
`;
