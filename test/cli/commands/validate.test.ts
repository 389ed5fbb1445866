import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

const VALID = {
  id: 1000,
  name: 'NDA for Ada',
  status: 'Sent',
  formType: 'Document',
  savedTime: '2025-01-01 10:00:00',
  participants: [
    { id: 5, name: 'Ada Lovelace', status: 'Viewed', role: { id: 7, name: 'Signer', sequence: 0 } },
  ],
  fields: [{ id: 70, roleId: 7, required: true, isMasked: false, type: 'signature' }],
};

const fileWith = async (content: string): Promise<string> => {
  const path = join(await tempDir(), 'sign-request.json');
  await writeFile(path, content);
  return path;
};

describe('signfold validate', () => {
  it('prints an ok summary and exits 0 for a valid representation', async () => {
    const file = await fileWith(JSON.stringify(VALID));
    const run = await runCli(['validate', file]);
    expect(run).toEqual({
      code: 0,
      stdout: `${file}: ok: sign request 1000 "NDA for Ada" (sent, Document, 1 participant, 1 field)\n`,
      stderr: '',
    });
  });

  it('prints every problem as path: message and exits 1', async () => {
    const invalid = {
      ...VALID,
      status: 'Finished',
      formType: undefined,
      participants: [{ ...VALID.participants[0], id: 'five' }],
      fields: [{ ...VALID.fields[0], roleId: 99 }],
    };
    const file = await fileWith(JSON.stringify(invalid));
    const run = await runCli(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    const paths = lines.slice(0, -1).map((line) => line.split(': ')[0]);
    expect(paths).toEqual(
      expect.arrayContaining(['status', 'formType', 'participants[0].id', 'fields[0].roleId']),
    );
    expect(lines.at(-1)).toBe(`${file}: invalid, ${lines.length - 1} problems`);
  });

  it('names the whole document (root) when it is not an object or not JSON', async () => {
    const array = await runCli(['validate', await fileWith('[1, 2]')]);
    expect(array.code).toBe(1);
    expect(array.stdout).toMatch(/^\(root\): expected a sign request object/);
    const garbage = await runCli(['validate', await fileWith('{"id": 1,')]);
    expect(garbage.code).toBe(1);
    expect(garbage.stdout).toMatch(/^\(root\): invalid JSON: /);
  });

  it('names a missing member once, and counts one problem in the singular', async () => {
    const file = await fileWith(JSON.stringify({ ...VALID, formType: undefined }));
    const run = await runCli(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(`formType: required member is missing\n${file}: invalid, 1 problem\n`);
    expect(run.stderr).toBe('');
  });

  it('points at check when the file is an event log (NDJSON), and not otherwise', async () => {
    const event = {
      type: 'template-deleted',
      companyId: 1,
      templateId: 7,
      templateName: 'NDA',
      ownerId: 2,
      ownerName: 'Ann',
    };
    const envelope = JSON.stringify({ position: 1, receivedAt: '2026-01-01T00:00:00.000Z', event });
    for (const content of [
      `${envelope}\n${envelope.replace('"position":1', '"position":2')}\n`,
      `${JSON.stringify(event)}\n`,
    ]) {
      const file = await fileWith(content);
      const run = await runCli(['validate', file]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/: invalid, \d+ problems?\n$/);
      expect(run.stderr).toBe(
        `signfold: ${file} looks like an event log (NDJSON), not a sign-request representation: ` +
          `lint a log with 'signfold check ${file}'\n`,
      );
    }
    const notALog = await runCli(['validate', await fileWith('{"id": 1,')]);
    expect(notALog.stderr).toBe('');
  });
});
