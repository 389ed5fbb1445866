/**
 * What the `pg rebuild` tests share: the CLI as a long-running child
 * process, the upcaster and reactor modules they load, and the comparison of
 * the switched tables with `replay --upcasters` of the stored events.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { expect } from 'vitest';
import { runCli, tempDir } from '../cli-helpers.js';

export { type Running, startCli } from '../cli-helpers.js';

/** The modules the tests load: an upcaster of `sign-request-expired`, and a reactor. */
export interface Modules {
  readonly upcasters: string;
  /** Reactor `on-declined`: one effect per applied `sign-request-declined` (upcast ones included). */
  readonly reactors: string;
}

/**
 * Writes {@link Modules}. The reactor busy-waits `SLOW_REACT_MS` per change
 * when that variable is set, so that a test can stop a worker in the middle
 * of a catch-up.
 */
export const writeModules = async (): Promise<Modules> => {
  const dir = await tempDir();
  const upcasters = join(dir, 'upcasters.mjs');
  await writeFile(
    upcasters,
    `export default [{
  name: 'expired-as-declined',
  from: 'sign-request-expired',
  to: ({ templateId, templateName, ...rest }) => ({ ...rest, type: 'sign-request-declined' }),
}];
`,
  );
  const reactors = join(dir, 'reactors.mjs');
  await writeFile(
    reactors,
    `const slow = Number(process.env.SLOW_REACT_MS ?? 0);
export default [{
  name: 'on-declined',
  react: (change) => {
    if (slow > 0) { const until = Date.now() + slow; while (Date.now() < until); }
    return change.event.type === 'sign-request-declined'
      ? [{ type: 'note', signRequestId: change.event.signRequestId }]
      : [];
  },
  execute: () => {},
}];
`,
  );
  return { upcasters, reactors };
};

/** The stored events as a file log of envelopes (the positions and times the table has). */
export const writeEventsLog = async (pool: pg.Pool, schema = 'signfold'): Promise<string> => {
  const { rows } = await pool.query<{
    position: string;
    delivery_id: string | null;
    received_at: Date | null;
    body: string;
  }>(`SELECT position, delivery_id, received_at, body FROM ${schema}.events ORDER BY position`);
  const path = join(await tempDir(), 'events.ndjson');
  const lines = rows.map((row) =>
    JSON.stringify({
      position: Number(row.position),
      ...(row.received_at === null ? {} : { receivedAt: row.received_at.toISOString() }),
      ...(row.delivery_id === null ? {} : { deliveryId: row.delivery_id }),
      event: JSON.parse(row.body),
    }),
  );
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
};

/**
 * Checks that `pg export` of `url` equals `replay LOG --json [--upcasters MODULE]` (records and
 * quarantine).
 */
export const expectExportEqualsReplay = async (
  url: string,
  log: string,
  upcasters?: string,
): Promise<void> => {
  const exported = await runCli(['pg', 'export', '--database', url]);
  expect(exported).toMatchObject({ code: 0, stderr: '' });
  const fromTables = JSON.parse(exported.stdout);
  const replayed = await runCli([
    'replay',
    log,
    '--json',
    ...(upcasters === undefined ? [] : ['--upcasters', upcasters]),
  ]);
  expect(replayed.code, replayed.stderr).toBe(0);
  const fromReplay = JSON.parse(replayed.stdout);
  // In the same (first-seen) order.
  for (const key of ['templates', 'signRequests', 'participants']) {
    expect(fromTables[key], key).toEqual(fromReplay[key]);
  }
  // The export names a reason by its kind; replay gives the whole reason.
  const positions = (entries: { position: number; reason: string | { kind: string } }[]) =>
    entries
      .map((q) => [q.position, typeof q.reason === 'string' ? q.reason : q.reason.kind])
      .sort((a, b) => Number(a[0]) - Number(b[0]));
  expect(positions(fromTables.quarantine)).toEqual(positions(fromReplay.quarantine));
};
