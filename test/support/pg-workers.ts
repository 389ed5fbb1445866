/**
 * `pg work --reactors` as processes, for the tests that kill, stop and resume
 * them: a database ready for the reactors of test/fixtures/reactors/pg-reactors.mjs
 * ({@link reactorsDatabase}), and one worker process on it ({@link startPgWorker}).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import { CLI, ROOT, runCli } from '../cli/cli-helpers.js';
import type { PostgresServer } from './postgres-server.js';

/** The reactors the workers run: SQL effects into `public.crm_notes`, calls to the HTTP sink. */
export const PG_REACTORS = join(ROOT, 'test/fixtures/reactors/pg-reactors.mjs');

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A new database `name` of `server` with the table the SQL effects write
 * (`public.crm_notes`), migrated with 4 partitions, and a pool of `poolMax`
 * connections on it (the caller ends it).
 */
export const reactorsDatabase = async (
  server: PostgresServer,
  name: string,
  poolMax: number,
): Promise<{ url: string; pool: pg.Pool }> => {
  const url = await server.createDatabase(name);
  const pool = new pg.Pool({ connectionString: url, max: poolMax });
  try {
    await pool.query('CREATE TABLE public.crm_notes (sign_request_id bigint, position bigint)');
    expect((await runCli(['pg', 'migrate', '--database', url, '--partitions', '4'])).code).toBe(0);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { url, pool };
};

/** A `pg work` process, named `id` in the lease rows and as its connections' application name. */
export interface PgWorker {
  readonly id: string;
  readonly child: ChildProcess;
  /** Its exit code once it closed (`null` after a signal). */
  readonly closed: Promise<number | null>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

/**
 * Starts `pg work --reactors` ({@link PG_REACTORS}) on `url` with `env`,
 * leases of `leaseMs`, polling every 100 ms, and `--drain` if `drain`.
 */
export const startPgWorker = (
  url: string,
  {
    env,
    id,
    leaseMs,
    drain,
  }: { env: NodeJS.ProcessEnv; id: string; leaseMs: number; drain: boolean },
): PgWorker => {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'pg',
      'work',
      '--database',
      url,
      '--reactors',
      PG_REACTORS,
      '--lease',
      String(leaseMs),
      '--poll-interval',
      '100',
      '--worker-id',
      id,
      ...(drain ? ['--drain'] : []),
    ],
    { env: { ...env, PGAPPNAME: id }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { id, child, closed, stderr: () => stderr };
};
