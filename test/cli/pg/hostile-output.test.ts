/**
 * Issue 21 #6 for `signfold pg`: the import summary, the worker's summary,
 * `pg status` (owners and last errors) and `pg export` print no control or
 * bidi character from the data, the log path or the flags; and the exported
 * JSON still parses back to the very names.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { forbiddenIn } from '../../support/terminal-safety.js';
import { removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

const HOSTILE = HOSTILE_CORPUS;
const ESC = '\u001b[2J\u001b]0;pwned\u0007';
const C1 = '\u009b31m\u0085\u007f';
const BIDI = '\u202efdp.exe\u2066x\u2069';
const TEMPLATE_NAME = `T ${ESC}${C1}${BIDI}`;
// No NUL: PostgreSQL text cannot hold one (the adapter stores U+FFFD in its place).
const PARTICIPANT_NAME = `P ${BIDI}\u0001`;

let server: PostgresServer;
let log: string;

beforeAll(async () => {
  server = await postgresDatabase();
  const dir = join(await tempDir(), `dir${ESC}${BIDI}`);
  await mkdir(dir);
  log = join(dir, `names${C1}.ndjson`);
  const owner = { companyId: 1, ownerId: 10, ownerName: `O ${C1}` };
  const who = {
    companyId: 1,
    ownerId: 10,
    ownerName: `O ${C1}`,
    senderId: 20,
    senderName: `S ${ESC}`,
  };
  const request = { signRequestId: 9, signRequestName: `R ${C1}\r\n` };
  const template = { templateId: 7, templateName: TEMPLATE_NAME };
  const participant = {
    participantId: 3,
    partcipantName: PARTICIPANT_NAME,
    roleId: 1,
    roleName: `Role ${BIDI}`,
  };
  await writeFile(
    log,
    `${[
      JSON.stringify({ type: 'template-activated', ...owner, ...template }),
      JSON.stringify({ type: 'sign-request-sent', ...who, ...request, ...template }),
      JSON.stringify({ type: 'participant-sent', ...who, ...request, ...template, ...participant }),
      JSON.stringify({ type: `participant-viewed${ESC}`, ...who }),
      `{"a":${ESC}${C1}${BIDI}}`,
    ].join('\n')}\n`,
  );
});

afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

/** Runs the CLI and checks that nothing forbidden is on stdout or stderr. */
const expectClean = async (args: readonly string[]) => {
  const result = await runCli(args);
  expect(forbiddenIn(result.stdout), result.stdout).toEqual([]);
  expect(forbiddenIn(result.stderr), result.stderr).toEqual([]);
  return result;
};

describe('signfold pg prints no control or bidi character from data', () => {
  it('migrate, import, work, status and export of hostile names', async () => {
    const url = await server.createDatabase('cli_hostile_names');
    expect((await expectClean(['pg', 'migrate', '--database', url])).code).toBe(0);
    const imported = await expectClean(['pg', 'import', log, '--database', url]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('\\u001b[2J');
    const worked = await expectClean([
      'pg',
      'work',
      '--drain',
      '--database',
      url,
      '--worker-id',
      `w${ESC}${BIDI}`,
    ]);
    expect(worked.code).toBe(0);
    for (const json of [false, true]) {
      const status = await expectClean([
        'pg',
        'status',
        '--database',
        url,
        ...(json ? ['--json'] : []),
      ]);
      expect(status.code).toBe(0);
    }
    const exported = await expectClean(['pg', 'export', '--database', url]);
    expect(exported.code).toBe(0);
    const document = JSON.parse(exported.stdout) as {
      templates: { name: string }[];
      participants: { name: string }[];
    };
    expect(document.templates.map((t) => t.name)).toEqual([TEMPLATE_NAME]);
    expect(document.participants.map((p) => p.name)).toEqual([PARTICIPANT_NAME]);
  });

  it('import, work, status and export of the hostile corpus (whatever their exit codes)', async () => {
    const url = await server.createDatabase('cli_hostile_corpus');
    await expectClean(['pg', 'migrate', '--database', url]);
    await expectClean(['pg', 'import', HOSTILE, '--database', url]);
    await expectClean(['pg', 'work', '--drain', '--database', url]);
    await expectClean(['pg', 'status', '--database', url]);
    await expectClean(['pg', 'status', '--json', '--database', url]);
    await expectClean(['pg', 'export', '--database', url]);
  });
});
