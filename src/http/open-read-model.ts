/**
 * The read model a read handler's options name, from the adapter that
 * keeps it: the file adapter's for `log`, PostgreSQL's for `database`. Each
 * is loaded only when named (a dynamic import), so `signfold/http` costs
 * neither `node:fs` nor `pg` to a user of the other, and runs where neither
 * exists; this file is the one place an adapter reaches another
 * (test/architecture.test.ts allows exactly these imports).
 */
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import type { ReadModel } from '../engine/read-model.js';

/** The parts of a `pg` Pool the PostgreSQL read model uses. */
export interface ReadPool {
  /** Runs one statement on any connection of the pool. */
  query(text: string, values?: unknown[]): Promise<{ readonly rows: unknown[] }>;
  /** Lends one connection, for the statements that must share a transaction. */
  connect(): Promise<{
    /** Runs one statement on this connection. */
    query(text: string, values?: unknown[]): Promise<{ readonly rows: unknown[] }>;
    /** Gives the connection back (destroys it when given an error or `true`). */
    release(destroy?: Error | boolean): void;
  }>;
}

/** Where the state is read. */
export interface ReadModelSource {
  readonly log?: string | undefined;
  readonly database?: string | ReadPool | undefined;
  readonly schema?: string | undefined;
  readonly followMs: number;
  readonly upcasters?: readonly Upcaster[] | undefined;
}

/** Opens the read model of `source`: a file log followed every `followMs`, or a database. */
export const openReadModel = async (source: ReadModelSource): Promise<ReadModel> => {
  if (source.log !== undefined) {
    const { openFileReadModel } = await import('../store/file-read-model.js');
    return openFileReadModel(source.log, {
      followMs: source.followMs,
      upcasters: source.upcasters ?? [],
    });
  }
  const { openPostgresReadModel } = await import('../postgres/read/open-read-model.js');
  // The adapter's pool type asks for more than this structural one says (prepared statements,
  // generic rows); a `pg` Pool is both, and the read model uses only what is named here.
  const database = source.database as Parameters<typeof openPostgresReadModel>[0];
  return openPostgresReadModel(database, source.schema);
};
