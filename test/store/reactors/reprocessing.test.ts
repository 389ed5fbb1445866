/**
 * After an upgrade or a new upcaster, the file runner reacts once to each
 * event it passed while quarantined and that is applied now, and never again
 * (also when the upcaster is taken away and given back); a position it passed
 * as applied or as a no-op is never handed over again.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import type { Change } from '../../../src/core/reactors/reactor-types.js';
import { defineUpcaster } from '../../../src/core/upcasters/define-upcaster.js';
import type { Upcaster } from '../../../src/core/upcasters/upcaster-types.js';
import { createFileReactorRunner } from '../../../src/store/reactors/file-reactor-runner.js';
import { readJournal } from '../../../src/store/reactors/reactor-journal.js';
import { envelope, requestEvent } from '../../cli/cli-helpers.js';
import { removeTempDirs, tempDir } from '../../reliability/fixtures/reliability-helpers.js';

afterAll(removeTempDirs);

/** Maps the type this version does not know onto a decline. */
const expiredAsDeclined = defineUpcaster({
  name: 'expired-as-declined',
  from: 'sign-request-expired',
  to: ({ templateId: _t, templateName: _n, ...rest }) => ({
    ...rest,
    type: 'sign-request-declined',
  }),
});

/** A reactor that notes each declined request it is handed, with where the change came from. */
const onDeclined = (name = 'on-declined') => {
  const seen: { position: number; id: number; upcast: boolean }[] = [];
  const reactor = defineReactor({
    name,
    react: (change: Change) =>
      change.event.type === 'sign-request-declined'
        ? [{ type: 'note', id: change.event.signRequestId as number }]
        : [],
    execute: () => undefined,
  });
  const watching = defineReactor({
    ...reactor,
    react: (change: Change) => {
      const effects = reactor.react(change);
      if (effects.length > 0) {
        seen.push({
          position: change.position,
          id: (change.event as { readonly signRequestId: number }).signRequestId,
          upcast: change.upcast !== undefined,
        });
      }
      return effects;
    },
  });
  return { reactor: watching, seen };
};

const run = async (
  log: string,
  reactors: ReturnType<typeof onDeclined>[],
  upcasters: readonly Upcaster[] = [],
) => {
  const summary = await createFileReactorRunner({
    logPath: log,
    reactors: reactors.map((r) => r.reactor),
    upcasters,
    drain: true,
  }).run();
  return summary._unsafeUnwrap();
};

const logWith = async (...lines: string[]): Promise<string> => {
  const path = join(await tempDir(), 'events.ndjson');
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
};

describe('re-processing on a file log', () => {
  it('reacts once to an event only an upcaster made applicable, after an upgrade, and never again', async () => {
    const log = await logWith(
      envelope(1, requestEvent('sign-request-sent', 1000, true)),
      envelope(2, requestEvent('sign-request-expired', 1000, true)),
      envelope(3, requestEvent('sign-request-sent', 1001, true)),
    );
    const before = onDeclined();
    await run(log, [before]);
    expect(before.seen).toEqual([]);
    expect((await readJournal(log))._unsafeUnwrap().unreacted).toEqual({
      'on-declined': { add: [2] },
    });
    // More traffic under the old version: reacted to as it comes.
    await appendFile(log, `${envelope(4, requestEvent('sign-request-declined', 1001, false))}\n`);
    const old = onDeclined();
    await run(log, [old]);
    expect(old.seen).toEqual([{ position: 4, id: 1001, upcast: false }]);

    const upgraded = onDeclined();
    const summary = await run(log, [upgraded], [expiredAsDeclined]);
    expect(upgraded.seen).toEqual([{ position: 2, id: 1000, upcast: true }]);
    expect(summary).toMatchObject({ reactions: 1, succeeded: 1 });
    expect((await readJournal(log))._unsafeUnwrap().unreacted).toEqual({});

    const again = onDeclined();
    await run(log, [again], [expiredAsDeclined]);
    expect(again.seen).toEqual([]);
    // Taken away and given back: quarantined again in between, but already reacted to.
    await run(log, [onDeclined()]);
    const back = onDeclined();
    await run(log, [back], [expiredAsDeclined]);
    expect(back.seen).toEqual([]);
  });

  it('reacts to a conflict an upcaster resolves; a reactor added later reacts as it passes', async () => {
    // The decline names another company: a conflict until an upcaster corrects the member.
    const wrongCompany = { ...requestEvent('sign-request-declined', 1000, false), companyId: 999 };
    const log = await logWith(
      envelope(1, requestEvent('sign-request-sent', 1000, true)),
      envelope(2, wrongCompany),
    );
    const first = onDeclined();
    await run(log, [first]);
    expect(first.seen).toEqual([]);
    const fixCompany = defineUpcaster({
      name: 'fix-company',
      from: (wire) => wire.companyId === 999,
      to: (wire) => ({
        ...wire,
        companyId: (requestEvent('x', 1, false) as { companyId: number }).companyId,
      }),
    });
    const upgraded = onDeclined();
    const newcomer = onDeclined('newcomer');
    await run(log, [upgraded, newcomer], [fixCompany]);
    expect(upgraded.seen).toEqual([{ position: 2, id: 1000, upcast: true }]);
    expect(newcomer.seen).toEqual([{ position: 2, id: 1000, upcast: true }]);
    const both = [onDeclined(), onDeclined('newcomer')];
    await run(log, both, [fixCompany]);
    expect(both.flatMap((r) => r.seen)).toEqual([]);
  });

  it('never hands over again a position it passed as applied or as a no-op', async () => {
    const declined = requestEvent('sign-request-declined', 1000, false);
    const log = await logWith(
      envelope(1, requestEvent('sign-request-sent', 1000, true)),
      envelope(2, declined),
      // A redelivery: a no-op, not quarantined.
      envelope(3, declined),
    );
    const first = onDeclined();
    await run(log, [first]);
    expect(first.seen).toEqual([{ position: 2, id: 1000, upcast: false }]);
    // An upcaster that turns the redelivery into a decline of another (sent) request would make
    // it applicable: position 3 was passed as a no-op, so it stays behind the checkpoint.
    await appendFile(log, `${envelope(4, requestEvent('sign-request-sent', 1001, true))}\n`);
    const redirect = defineUpcaster({
      name: 'redirect',
      from: (wire) => wire.type === 'sign-request-declined',
      to: (wire) => ({ ...wire, signRequestId: 1001 }),
    });
    const upgraded = onDeclined();
    await run(log, [upgraded], [redirect]);
    expect(upgraded.seen).toEqual([]);
  });

  it('keeps the positions through journal compaction and refuses a damaged unreacted member', async () => {
    const log = await logWith(
      envelope(1, requestEvent('sign-request-sent', 1000, true)),
      envelope(2, requestEvent('sign-request-expired', 1000, true)),
    );
    await run(log, [onDeclined()]);
    // Every run compacts the journal when it opens it: the set survives two more.
    await run(log, [onDeclined()]);
    await run(log, [onDeclined()]);
    const text = await readFile(`${log}.reactors`, 'utf8');
    expect(text.trim().split('\n')).toHaveLength(2);
    expect(JSON.parse(text.split('\n')[1] as string).unreacted).toEqual({
      'on-declined': { add: [2] },
    });
    await writeFile(
      `${log}.reactors`,
      `${text.trimEnd()}\n${JSON.stringify({ nextId: 1, positions: {}, watermarks: {}, entries: [], unreacted: { 'on-declined': { add: [-1] } } })}\n`,
    );
    const refused = await readJournal(log);
    expect(refused._unsafeUnwrapErr()).toMatchObject({ kind: 'corrupt' });
    expect(refused._unsafeUnwrapErr().message).toMatch(
      /\.reactors:3: unreacted is not a map of position changes$/,
    );
  });
});
