/**
 * Appends consult the erasure ledger: an event appended after a forget, for
 * a participant or user id it forgot (a late redelivery), is stored with the
 * names already replaced (`ErasureLedger.eraseOnAppend`), so the name does
 * not come back.
 *
 * Race-free without a lock of its own: the insert statement carries the
 * ledger version its bodies were erased with and checks it once the append
 * lock is taken (`ledger_unchanged`, migration 6). A forget holds that lock
 * to its commit, so an append that waited for it sees the forget's ledger
 * rows, fails with `LEDGER_CHANGED`, reads the ledger again and erases again.
 * Cost when nothing was ever forgotten: one read of the empty ledger per
 * process, and in each insert one index probe of an empty table.
 */
import { err, type Result } from 'neverthrow';
import type { AppendOutcome } from '../../engine/event-log.js';
import { readLedgerRows, type StoredLedger } from '../forget/erasure-rows.js';
import { databaseError, type PostgresError } from '../postgres-error.js';
import { LEDGER_CHANGED } from '../schema/migration-erasures.js';
import type { SchemaName } from '../schema-name.js';
import type { SqlQueryable } from '../sql-client.js';
import type { StoredItem } from './event-rows.js';
import { storeRecords } from './store-records.js';

/** How many times one group reads the ledger again before it reports the failure (forgets in a row). */
const TRIES = 5;

/** `items` with the names of forgotten ids replaced (bad lines carry no member to read: kept). */
export const eraseItems = (
  items: readonly StoredItem[],
  { ledger }: StoredLedger,
): readonly StoredItem[] =>
  ledger.isEmpty
    ? items
    : items.map((item) => {
        if (item.badLine !== undefined) return item;
        const body = ledger.eraseOnAppend(item.body);
        return body === item.body ? item : { ...item, body };
      });

/**
 * The append path of one log: keeps the ledger it last read, erases each
 * group of items with it, and reads it again when an insert says it changed.
 */
export class ErasedAppends {
  private readonly schema: SchemaName;
  private known: StoredLedger | undefined;

  /** For the events of `schema`. */
  constructor(schema: SchemaName) {
    this.schema = schema;
  }

  /** Stores `items` (see `storeRecords`), each erased with the stored ledger. */
  async store(
    db: SqlQueryable,
    items: readonly StoredItem[],
  ): Promise<Result<AppendOutcome[], PostgresError>> {
    for (let tries = 1; ; tries += 1) {
      if (this.known === undefined) {
        try {
          this.known = await readLedgerRows(db, this.schema);
        } catch (cause) {
          return err(databaseError(cause, `reading ${this.schema}.erasures`));
        }
      }
      const stored = await storeRecords(
        db,
        this.schema,
        eraseItems(items, this.known),
        this.known.version,
      );
      if (stored.isOk() || stored.error.kind !== 'database') return stored;
      if (stored.error.code !== LEDGER_CHANGED || tries >= TRIES) return stored;
      this.known = undefined;
    }
  }
}
