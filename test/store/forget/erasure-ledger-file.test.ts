import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ErasureEntry } from '../../../src/core/privacy/erasure-ledger.js';
import { openFileEventLog } from '../../../src/store/file-event-log.js';
import {
  appendErasureEntry,
  ledgerPathOf,
  readLedgerFile,
} from '../../../src/store/forget/erasure-ledger-file.js';
import { removeTempDirs, tempDir } from '../../cli/cli-helpers.js';

afterAll(removeTempDirs);

const entry: ErasureEntry = {
  erasure: 'e1',
  state: 'started',
  at: '2026-11-27T12:00:00.000Z',
  pseudonym: 'forgotten-0123456789abcdef',
  participantIds: [7],
  userIds: [],
  typedNames: 0,
};

describe('the erasure ledger file', () => {
  it('is empty when missing, and reads back what was appended', async () => {
    const log = join(await tempDir(), 'e.ndjson');
    expect((await readLedgerFile(log))._unsafeUnwrap().isEmpty).toBe(true);
    (await appendErasureEntry(log, entry))._unsafeUnwrap();
    (
      await appendErasureEntry(log, { ...entry, state: 'done', counts: { 'log records': 3 } })
    )._unsafeUnwrap();
    const ledger = (await readLedgerFile(log))._unsafeUnwrap();
    expect(ledger.entries.map((e) => e.state)).toEqual(['started', 'done']);
  });

  it('drops a torn last line (a crash before its fdatasync), and the next entry cuts it', async () => {
    const log = join(await tempDir(), 'e.ndjson');
    (await appendErasureEntry(log, entry))._unsafeUnwrap();
    await appendFile(ledgerPathOf(log), '{"erasure":"e2","sta');
    expect((await readLedgerFile(log))._unsafeUnwrap().entries).toHaveLength(1);
    (await appendErasureEntry(log, { ...entry, erasure: 'e3' }))._unsafeUnwrap();
    const lines = (await readFile(ledgerPathOf(log), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).erasure)).toEqual(['e1', 'e3']);
  });

  it('a damaged entry stops a writer from opening the log, naming the line', async () => {
    const log = join(await tempDir(), 'e.ndjson');
    await writeFile(log, '');
    await writeFile(
      ledgerPathOf(log),
      `${JSON.stringify(entry)}\n{"erasure":"e2","state":"done"}\n`,
    );
    const read = await readLedgerFile(log);
    expect(read._unsafeUnwrapErr().message).toContain(
      'e.ndjson.erasures:2: damaged erasure ledger',
    );
    const opened = await openFileEventLog(log);
    expect(opened._unsafeUnwrapErr().message).toContain('damaged erasure ledger');
    // The lock was given back: a repaired ledger lets the writer in.
    await writeFile(ledgerPathOf(log), `${JSON.stringify(entry)}\n`);
    const reopened = await openFileEventLog(log);
    expect(reopened.isOk()).toBe(true);
    await reopened._unsafeUnwrap().close();
  });
});
