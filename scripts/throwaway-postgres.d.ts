/** A running throwaway server (see throwaway-postgres.js). */
export interface PostgresServer {
  /** `postgres://signfold@127.0.0.1:PORT/postgres` */
  readonly url: string;
  readonly port: number;
  /** Creates a fresh database (name: lower-case letters, digits, _) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and deletes its directory; idempotent. */
  stop(): void;
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
export function makeTemplate(): { readonly data: string; remove(): void };
