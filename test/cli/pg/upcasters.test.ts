/**
 * `pg work --upcasters MODULE`: workers fold what the upcasters make, so the
 * tables equal `replay --upcasters` of the same log (the example log's
 * `sign-request-expired` mapped to `sign-request-declined`), and a bad module
 * is one line and exit 2.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

const EXAMPLE = join(ROOT, 'examples/events.ndjson');

let server: PostgresServer;
let upcasters: string;

beforeAll(async () => {
  server = await postgresDatabase();
  upcasters = join(await tempDir(), 'upcasters.mjs');
  await writeFile(
    upcasters,
    `export default [{
  name: 'expired-as-declined',
  from: 'sign-request-expired',
  to: ({ templateId, templateName, ...rest }) => ({ ...rest, type: 'sign-request-declined' }),
}];
`,
  );
});

afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

describe('signfold pg work --upcasters', () => {
  it('projects what the upcasters make, as replay --upcasters does', async () => {
    const url = await server.createDatabase('cli_upcasters');
    for (const args of [
      ['pg', 'migrate', '--database', url],
      ['pg', 'import', EXAMPLE, '--database', url],
      ['pg', 'work', '--database', url, '--drain', '--upcasters', upcasters],
    ]) {
      expect(await runCli(args)).toMatchObject({ code: 0, stderr: '' });
    }
    const exported = await runCli(['pg', 'export', '--database', url]);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const fromTables = JSON.parse(exported.stdout);
    const replayed = await runCli(['replay', EXAMPLE, '--json', '--upcasters', upcasters]);
    expect(replayed).toMatchObject({ code: 0, stderr: '' });
    const fromReplay = JSON.parse(replayed.stdout);
    for (const key of ['templates', 'signRequests', 'participants', 'quarantine']) {
      expect(fromTables[key], key).toEqual(fromReplay[key]);
    }
    // The upcast line is applied on both: request 100109 is declined, nothing says "unknown type".
    const expired = fromTables.signRequests.find((r: { id: number }) => r.id === 100109);
    expect(expired?.status).toBe('declined');
    expect(JSON.stringify(fromTables.quarantine)).not.toContain('sign-request-expired');
    expect(fromTables.quarantine.length).toBe(fromReplay.quarantine.length);
  });

  it('refuses a bad module in one line, exit 2, before connecting', async () => {
    const bad = join(await tempDir(), 'bad.mjs');
    await writeFile(bad, 'export default 1;\n');
    const run = await runCli([
      'pg',
      'work',
      '--database',
      'postgres://127.0.0.1:1/x',
      '--drain',
      '--upcasters',
      bad,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `signfold: pg work: ${bad} must export an array of upcasters as its default export\n`,
    );
  });
});
