/**
 * What a store holds, read back by delivery id, for the process-level tests of `signfold serve`:
 * each delivery id with the number of records that carry it. Read raw (the file's lines parsed one
 * by one, the `events` table queried directly), not through signfold's readers, which rebuild the
 * ids once: a delivery stored twice must show as 2 here.
 */
import { readFile } from 'node:fs/promises';
import type pg from 'pg';

/** The records of a store, by delivery id. */
export interface StoredDeliveries {
  /** Delivery id → how many records carry it. */
  readonly counts: ReadonlyMap<string, number>;
  /** Records without a delivery id. */
  readonly withoutId: number;
  /** Every record. */
  readonly records: number;
}

const tally = (ids: readonly (string | undefined)[]): StoredDeliveries => {
  const counts = new Map<string, number>();
  let withoutId = 0;
  for (const id of ids) {
    if (id === undefined) withoutId += 1;
    else counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return { counts, withoutId, records: ids.length };
};

/**
 * The delivery ids of a file log: one per envelope line (`{"position",…,"deliveryId",…}`). A line
 * that is not JSON (a torn tail after SIGKILL) is no record and is left out; so is a missing file.
 */
export const fileLogDeliveries = async (path: string): Promise<StoredDeliveries> => {
  const text = await readFile(path, 'utf8').catch((cause: NodeJS.ErrnoException) => {
    if (cause.code === 'ENOENT') return '';
    throw cause;
  });
  const ids: (string | undefined)[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const id = (value as { deliveryId?: unknown } | null)?.deliveryId;
    ids.push(typeof id === 'string' ? id : undefined);
  }
  return tally(ids);
};

/** The delivery ids of the `events` table of `schema` (default `signfold`) on PostgreSQL. */
export const postgresDeliveries = async (
  pool: pg.Pool,
  schema = 'signfold',
): Promise<StoredDeliveries> => {
  const rows = await pool.query<{ delivery_id: string | null }>(
    `SELECT delivery_id FROM ${schema}.events ORDER BY position`,
  );
  return tally(rows.rows.map((row) => row.delivery_id ?? undefined));
};

/** What a comparison of the answers with the store found; every list is empty when all is well. */
export interface DeliveryAudit {
  /** Answered 2xx, not stored. */
  readonly lost: readonly string[];
  /** Stored more than once. */
  readonly doubled: readonly string[];
  /** Stored, but never sent (a store that invents records). */
  readonly unknown: readonly string[];
}

/**
 * Compares the delivery ids answered 2xx (`acknowledged`) and all those sent (`sent`) with what
 * the store holds: every acknowledged id stored, none twice, none that was not sent.
 */
export const auditDeliveries = (
  stored: StoredDeliveries,
  acknowledged: Iterable<string>,
  sent: Iterable<string>,
): DeliveryAudit => {
  const sentIds = new Set(sent);
  return {
    lost: [...new Set(acknowledged)].filter((id) => !stored.counts.has(id)),
    doubled: [...stored.counts].filter(([, n]) => n > 1).map(([id]) => id),
    unknown: [...stored.counts.keys()].filter((id) => !sentIds.has(id)),
  };
};
