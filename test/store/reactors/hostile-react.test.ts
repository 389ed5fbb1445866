/**
 * The hostile corpus, mutated, through the file reactor runner: it drains
 * without a crash or a parked effect that should not be, and reacts to
 * exactly the records a plain replay applies (never to a quarantined line).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import { createProjector } from '../../../src/engine/projector.js';
import { readFileEventLog } from '../../../src/store/file-record-stream.js';
import { createFileReactorRunner } from '../../../src/store/reactors/file-reactor-runner.js';
import { count, removeTempDirs, tempDir } from '../../reliability/fixtures/reliability-helpers.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { idMutationsArb, mutateIds } from '../../support/hostile-mutations.js';

afterAll(removeTempDirs);

/** Positions a plain replay applies, and those it quarantines. */
const verdicts = async (path: string) => {
  const applied: number[] = [];
  const projector = createProjector({ onApplied: (change) => applied.push(change.position) });
  await projector.replay({ read: (o) => readFileEventLog(path, o) });
  return { applied, quarantined: projector.quarantine().map((entry) => entry.position) };
};

describe('the hostile corpus through react', () => {
  it('reacts to exactly the applied records of every mutation, and parks nothing', async () => {
    const corpus = await readFile(HOSTILE_CORPUS);
    await fc.assert(
      fc.asyncProperty(idMutationsArb(corpus), async (mutations) => {
        const dir = await tempDir();
        const log = join(dir, 'hostile.ndjson');
        await writeFile(log, mutateIds(corpus, mutations));
        const reacted: number[] = [];
        const executed: string[] = [];
        const reactor = defineReactor({
          name: 'everything',
          react: (change) => {
            reacted.push(change.position);
            return [{ type: 'seen', position: change.position }];
          },
          execute: async (_, ctx) => {
            executed.push(ctx.idempotencyKey);
          },
        });
        const run = await createFileReactorRunner({
          logPath: log,
          reactors: [reactor],
          drain: true,
        }).run();
        const summary = run._unsafeUnwrap();
        const { applied, quarantined } = await verdicts(log);
        expect(reacted).toEqual(applied);
        expect(
          reacted.filter(
            (position) => quarantined.includes(position) && !applied.includes(position),
          ),
        ).toEqual([]);
        expect(executed.sort()).toEqual(
          applied.map((position) => `everything:${position}:0`).sort(),
        );
        expect(summary.report.parked).toEqual([]);
      }),
      { numRuns: count(8, 100) },
    );
  });
});
