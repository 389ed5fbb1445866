// A throwaway PostgreSQL server for tests and benchmarks: `initdb` into a temporary directory,
// started on 127.0.0.1 and a free port, stopped and deleted by `stop()` (call it in a finally or
// an afterAll). The server refuses to run as root, so as root it runs as the `postgres` user.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const findBin = () => {
  if (process.env.SIGNFOLD_PG_BIN !== undefined) return process.env.SIGNFOLD_PG_BIN;
  const debian = ['17', '16', '15', '14'].map((v) => `/usr/lib/postgresql/${v}/bin`);
  for (const dir of ['/usr/local/bin', ...debian]) {
    try {
      execFileSync(join(dir, 'pg_ctl'), ['--version'], { stdio: 'ignore' });
      return dir;
    } catch {
      // try the next one
    }
  }
  throw new Error('PostgreSQL binaries (pg_ctl, initdb) not found; set SIGNFOLD_PG_BIN');
};

const asRoot = process.getuid?.() === 0;

/** @param {string} bin @param {string} program @param {readonly string[]} args */
const run = (bin, program, args) => {
  const command = join(bin, program);
  if (asRoot)
    execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
  else execFileSync(command, args, { stdio: 'pipe' });
};

/** @returns {Promise<number>} */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/** A temporary directory the server's user can write to. */
const serverDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'signfold-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  return dir;
};

/** @param {string} bin @param {string} data */
const initdb = (bin, data) =>
  run(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'signfold', '--no-sync']);

/**
 * The variable that names a cluster made by {@link makeTemplate}: while it is set, each server
 * starts on a copy of that cluster instead of running `initdb` (most of the cost of a server:
 * seconds of CPU, where the copy takes a fraction of one). A copy is a cluster of its own.
 */
export const TEMPLATE_VARIABLE = 'SIGNFOLD_PG_TEMPLATE';

/**
 * Runs `initdb` once into a temporary directory, for {@link TEMPLATE_VARIABLE}; the caller must
 * `remove()` it.
 */
export const makeTemplate = () => {
  const bin = findBin();
  const dir = serverDir();
  const data = join(dir, 'data');
  try {
    initdb(bin, data);
  } catch (cause) {
    rmSync(dir, { recursive: true, force: true });
    throw cause;
  }
  return { data, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

/**
 * Starts a server; the caller must `stop()` it.
 * @param {{ settings?: readonly string[] }} [options] extra `-c name=value` server settings
 */
export const startPostgres = async (options = {}) => {
  const bin = findBin();
  const dir = serverDir();
  const data = join(dir, 'data');
  const port = await freePort();
  let started = false;
  const stop = () => {
    if (started) {
      try {
        run(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already gone
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const settings = [
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=200',
    ...(options.settings ?? []),
  ];
  const start = () => {
    run(bin, 'pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} ${settings.join(' ')}`,
      '-w',
      'start',
    ]);
    started = true;
  };
  try {
    const template = process.env[TEMPLATE_VARIABLE];
    // `cp -a` keeps the owner (the postgres user when run as root) and the 0700 mode.
    if (template !== undefined && template !== '') execFileSync('cp', ['-a', template, data]);
    else initdb(bin, data);
    start();
  } catch (cause) {
    stop();
    throw cause;
  }
  const url = `postgres://signfold@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    /** @param {string} name lower-case letters, digits and _ */
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
    /** Stops the server but keeps its data and port, for outage tests; `resume()` starts it again. */
    pause: () => {
      run(bin, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      started = false;
    },
    /** Starts a server stopped by `pause()` again, on the same port with the same data. */
    resume: start,
    /**
     * Restarts the server in place (`pg_ctl restart`): `fast` rolls back and
     * closes every session, `immediate` kills them (crash recovery at start).
     * @param {'fast' | 'immediate'} mode
     */
    restart: (mode) => {
      run(bin, 'pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-m',
        mode,
        '-o',
        `-p ${port} -k ${dir} ${settings.join(' ')}`,
        '-w',
        'restart',
      ]);
      started = true;
    },
  };
};
