/**
 * A throwaway PostgreSQL server for a test file: `initdb` into a temporary
 * directory, started on 127.0.0.1 and a free port, stopped and deleted by
 * `stop()` (also after a failed test: call it from `afterAll`). The server
 * refuses to run as root, so as root it runs as the `postgres` user.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A running throwaway server. */
export interface PostgresServer {
  /** `postgres://signfold@127.0.0.1:PORT/postgres` */
  readonly url: string;
  readonly port: number;
  /** Creates a fresh database (name: lower-case letters, digits, _) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): void;
}

const BIN = process.env.SIGNFOLD_PG_BIN ?? findBin();

function findBin(): string {
  for (const dir of [
    '/usr/local/bin',
    '/usr/lib/postgresql/15/bin',
    '/usr/lib/postgresql/16/bin',
  ]) {
    try {
      execFileSync(join(dir, 'pg_ctl'), ['--version'], { stdio: 'ignore' });
      return dir;
    } catch {
      // try the next one
    }
  }
  throw new Error('PostgreSQL binaries (pg_ctl, initdb) not found; set SIGNFOLD_PG_BIN');
}

const asRoot = process.getuid?.() === 0;

const run = (program: string, args: readonly string[]): void => {
  const command = join(BIN, program);
  if (asRoot)
    execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
  else execFileSync(command, args, { stdio: 'pipe' });
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/** Starts a server; the caller must `stop()` it. */
export const startPostgres = async (): Promise<PostgresServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'signfold-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  let started = false;
  const stop = (): void => {
    if (started) {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already gone
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'signfold', '--no-sync']);
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      '-w',
      'start',
    ]);
    started = true;
  } catch (cause) {
    stop();
    throw cause;
  }
  const url = `postgres://signfold@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    createDatabase: async (name) => {
      const client = new pg.Client(url);
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://signfold@127.0.0.1:${port}/${name}`;
    },
    stop,
  };
};
