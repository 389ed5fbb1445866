/**
 * PostgreSQL for the tests: a database of the file's own on the worker's shared server (see
 * postgres-setup.ts), or a server of the file's own for the tests that pause, restart or stop it.
 */
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { type PostgresServer, startPostgres } from '../../scripts/throwaway-postgres.js';
import { OWN_SERVER_SETTINGS } from './postgres-settings.js';

export type { PostgresServer };

/** Starts a server of this file's own (the caller must `stop()` it). */
export const ownPostgres = (): Promise<PostgresServer> =>
  startPostgres({ settings: OWN_SERVER_SETTINGS });

/** The URL of this worker's shared server, or a one-line error that says why there is none. */
const sharedUrl = (): string => {
  const provided = inject('postgres');
  if ('missing' in provided) throw new Error(provided.missing);
  const slot = Number(process.env.VITEST_POOL_ID ?? '1') - 1;
  const url = provided.urls[slot % provided.urls.length];
  if (url === undefined) throw new Error('no shared PostgreSQL server for this worker');
  return url;
};

let created = 0;

/** `url` with its database replaced by `name`. */
const onDatabase = (url: string, name: string): string => {
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
};

/** Runs `sql` on the server's `postgres` database. */
const admin = async (url: string, sql: string): Promise<void> => {
  const client = new pg.Client(onDatabase(url, 'postgres'));
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

/**
 * Drops `name`, first giving the sessions still closing on it (a pool whose `end()` resolved
 * before its sockets closed) up to 2 s to go: a FORCE drop terminates them, and a client that
 * is ending when that message arrives has no listener left for the error, which vitest then
 * reports as unhandled. FORCE still ends whatever a test left open.
 */
const dropDatabase = async (url: string, name: string): Promise<void> => {
  const client = new pg.Client(onDatabase(url, 'postgres'));
  await client.connect();
  try {
    for (let tries = 0; tries < 40; tries += 1) {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      if ((rows[0]?.n ?? 0) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
};

const notOwn = (what: string) => (): never => {
  throw new Error(
    `${what} would touch every file's database on the shared server: start one of the file's own (ownPostgres() or throwawayPostgres({ own: true }))`,
  );
};

/**
 * A fresh database on this worker's shared server, shaped as a server: `url` is the database's,
 * `createDatabase(name)` makes more beside it (named after it, so files never collide), and
 * `stop()` drops them all. Pausing or restarting the shared server is refused.
 */
export const postgresDatabase = async (): Promise<PostgresServer> => {
  const server = sharedUrl();
  created += 1;
  const base = `f${process.pid}_${created}`;
  const names = [base];
  // As scripts/throwaway-postgres.js does, for the same reason: a third of the server's CPU.
  await admin(server, `CREATE DATABASE ${base} STRATEGY FILE_COPY`);
  return {
    url: onDatabase(server, base),
    port: Number(new URL(server).port),
    createDatabase: async (name: string) => {
      if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a database name: ${name}`);
      const full = `${base}_${name}`.slice(0, 63);
      await admin(server, `CREATE DATABASE ${full} STRATEGY FILE_COPY`);
      names.push(full);
      return onDatabase(server, full);
    },
    // Dropped, not only forgotten: the shared server serves the worker's later files.
    stop: async () => {
      for (const name of names.splice(0)) {
        await dropDatabase(server, name).catch(() => undefined);
      }
    },
    pause: notOwn('pause()'),
    resume: notOwn('resume()'),
    restart: notOwn('restart()'),
  } as PostgresServer;
};

/** The server and pool of {@link throwawayPostgres}, readable once its `beforeAll` ran. */
export interface ThrowawayPostgres {
  readonly server: PostgresServer;
  readonly pool: pg.Pool;
}

/**
 * A database and a pool of `poolSize` connections on it for the tests of one file (or describe
 * block): made before them, the pool ended and the database dropped after them, also when they
 * fail. On this worker's shared server, or with `own` on a server of their own (for tests that
 * pause, restart or stop it).
 */
export const throwawayPostgres = (
  poolSize = 6,
  options: { readonly own?: boolean } = {},
): ThrowawayPostgres => {
  let server: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    server = await (options.own === true ? ownPostgres() : postgresDatabase());
    pool = new pg.Pool({ connectionString: server.url, max: poolSize });
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the throwaway PostgreSQL server is not started yet');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get pool() {
      return started(pool);
    },
  };
};
