import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { ROOT, removeTempDirs, runCli, writeFixture } from '../cli-helpers.js';

let server: PostgresServer;
/** A TCP listener on 127.0.0.1 that accepts connections and never answers. */
let silent: Server;
const sockets: Socket[] = [];
let silentPort: number;
/**
 * How long each client of the silent listener waited before it hung up (ms),
 * in the order they connected: the connect timeout at work, without the time
 * a busy machine takes to start the command.
 */
const waits: { readonly accepted: number; closed?: number }[] = [];

beforeAll(async () => {
  server = await postgresDatabase();
  silent = createServer((socket) => {
    const wait: (typeof waits)[number] = { accepted: performance.now() };
    waits.push(wait);
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.resume(); // reads and drops what the client sends, so that its hang-up is seen
    socket.on('close', () => {
      wait.closed = performance.now();
    });
  });
  silentPort = await new Promise<number>((resolve) => {
    silent.listen(0, '127.0.0.1', () => {
      const address = silent.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  await server?.stop();
  await removeTempDirs();
});

const SECRET = 's3cretPW';

/** Exit 2, nothing on stdout, one `signfold: ` line on stderr that never carries the password. */
const expectOneLine = (run: { code: number | null; stdout: string; stderr: string }): string => {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^signfold: [^\n]+\n$/);
  expect(run.stderr).not.toContain(SECRET);
  return run.stderr;
};

describe('pg commands and their database URL', () => {
  it('a malformed URL never prints its password, from --database or DATABASE_URL', async () => {
    const malformed = `postgres://secure:${SECRET}@127.0.0.1:notaport/app`;
    const log = await writeFixture('secret.ndjson', ['{}']);
    for (const args of [
      ['pg', 'status', '--database', malformed],
      ['pg', 'import', log, '--database', malformed],
      ['report', '--out', 'x.html', '--database', malformed],
      ['inspect', '--sign-request', '1', '--database', malformed],
      ['pg', 'work', '--database', `postgres:secure:${SECRET}@127.0.0.1/app`],
    ]) {
      expect(expectOneLine(await runCli(args))).toContain("(got '");
    }
    const fromEnv = await runCli(['pg', 'status'], ROOT, {
      ...process.env,
      DATABASE_URL: malformed,
    });
    expect(expectOneLine(fromEnv)).toContain(
      "DATABASE_URL must be a URL such as postgres://user@host:5432/db (got 'postgres://…@127.0.0.1:notaport/app')",
    );
  });

  it('messages of the server that quote a part of the URL leave the password out', async () => {
    // The server answers `database "s3cretPW" does not exist` / `role "s3cretPW" does not exist`.
    const address = new URL(server.url);
    const asDatabase = `postgres://signfold:${SECRET}@${address.host}/${SECRET}`;
    const asUser = `postgres://${SECRET}:${SECRET}@${address.host}/postgres`;
    const inQuery = `postgres://${SECRET}@${address.host}/postgres?password=${SECRET}`;
    for (const database of [asDatabase, asUser, inQuery]) {
      const status = expectOneLine(await runCli(['pg', 'status', '--database', database]));
      expect(status).toMatch(/"\*\*\*" does not exist \(SQLSTATE (3D000|28000)\)/);
      const report = await runCli(['report', '--out', 'x.html', '--database', database]);
      expect(expectOneLine(report)).toContain('"***"');
    }
  });

  it('a refused connection is labelled in words, not as a SQLSTATE', async () => {
    const run = await runCli(['pg', 'status', '--database', 'postgres://u@127.0.0.1:1/x']);
    expect(expectOneLine(run)).toMatch(/ECONNREFUSED 127\.0\.0\.1:1 \(connection refused\)\n$/);
    expect(run.stderr).not.toContain('SQLSTATE');
  });

  it('a listener that never answers fails every command in --connect-timeout, with one line', async () => {
    const url = `postgres://signfold:${SECRET}@127.0.0.1:${silentPort}/app`;
    const log = await writeFixture('never.ndjson', ['{}']);
    const commands = [
      ['pg', 'status'],
      ['pg', 'migrate'],
      ['pg', 'import', log],
      ['pg', 'work'],
      ['pg', 'work', '--drain'],
      ['pg', 'export'],
      ['report', '--out', 'x.html'],
      ['inspect', '--sign-request', '1'],
    ];
    const before = waits.length;
    await Promise.all(
      commands.map(async (command) => {
        const run = await runCli([...command, '--database', url, '--connect-timeout', '1']);
        expect(expectOneLine(run)).toMatch(
          /failed: Connection terminated due to connection timeout \(no answer within 1 s: see --connect-timeout\)\n$/,
        );
      }),
    );
    // Each hung up after about a second, not after the default 10 s (the time its process
    // took to start, seconds when 8 start at once on a busy machine, is not counted).
    const ours = waits.slice(before);
    expect(ours.length).toBeGreaterThanOrEqual(commands.length);
    await eventually(() => ours.every((wait) => wait.closed !== undefined), 'every hang-up');
    for (const { accepted, closed = Number.POSITIVE_INFINITY } of ours) {
      expect(closed - accepted).toBeLessThan(8_000);
    }
    const bad = await runCli(['pg', 'status', '--database', url, '--connect-timeout', '0']);
    expect(expectOneLine(bad)).toContain('--connect-timeout must be 1 to 86400');
  });

  it('without --connect-timeout, pg status gives up after the default 10 s', async () => {
    const before = waits.length;
    const started = performance.now();
    const run = await runCli([
      'pg',
      'status',
      '--database',
      `postgres://u@127.0.0.1:${silentPort}/app`,
    ]);
    // Not before 10 s (less than the run: its process took time to start, too)...
    expect((performance.now() - started) / 1000).toBeGreaterThanOrEqual(9.5);
    expect(expectOneLine(run)).toContain('(no answer within 10 s: see --connect-timeout)');
    // ...and not much after: the connection's own wait, whatever the start took.
    const ours = waits.slice(before);
    expect(ours.length).toBeGreaterThan(0);
    await eventually(() => ours.every((wait) => wait.closed !== undefined), 'the hang-up');
    for (const { accepted, closed = Number.POSITIVE_INFINITY } of ours) {
      expect(closed - accepted).toBeLessThan(18_000);
    }
  });
});
