/**
 * Single-bit flips of a snapshot file written by the library: none may be
 * restored as a different state (finding 3 of issue 21). Without a checksum,
 * 35–40% of flips loaded as another state, e.g. checkpoint 3917 read as 7917.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createProjector } from '../../src/engine/projector.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';
import { readSnapshotFile, writeSnapshotFile } from '../../src/store/snapshot-file.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { rawStreamArb, recordsLog, recordsOf } from '../support/engine-arbitraries.js';

afterAll(removeTempDirs);

/** What reading `bytes` as a snapshot file gives: refused, or the snapshot of the restored projector. */
const load = async (path: string, bytes: Uint8Array) => {
  await writeFile(path, bytes);
  const read = await readSnapshotFile(path);
  if (read.isErr()) return { refused: read.error.kind } as const;
  const restored = restoreProjector(read.value);
  if (restored.isErr()) return { refused: restored.error.kind } as const;
  return { restored: takeSnapshot(restored.value) } as const;
};

/** A flip: a byte (taken modulo the file's length) and a bit; unbiased, so every byte is as likely. */
const flipArb = fc.tuple(fc.noBias(fc.nat({ max: 2 ** 30 })), fc.noBias(fc.nat(7)));

describe('single-bit flips of a library snapshot file', () => {
  const runs = count(12, 80);
  const flipsPerRun = count(10, 30);

  it(`never load as a different state (${runs} snapshots × ${flipsPerRun} flips)`, async () => {
    const dir = await tempDir();
    const original = join(dir, 'state.snapshot.json');
    const flipped = join(dir, 'flipped.snapshot.json');
    const tally = { flips: 0, refused: 0, same: 0, different: 0 };
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true }),
        fc.array(flipArb, { minLength: flipsPerRun, maxLength: flipsPerRun }),
        async (stream, flips) => {
          const projector = createProjector();
          await projector.replay(recordsLog(recordsOf(stream)));
          const snapshot = takeSnapshot(projector);
          (await writeSnapshotFile(original, snapshot))._unsafeUnwrap();
          const bytes = await readFile(original);
          // The untouched file loads as the very state it was taken from.
          expect((await load(flipped, bytes)).restored).toEqual(snapshot);
          for (const [where, bit] of flips) {
            const damaged = Uint8Array.from(bytes);
            const index = where % damaged.length;
            damaged[index] = (damaged[index] ?? 0) ^ (1 << bit);
            const loaded = await load(flipped, damaged);
            tally.flips += 1;
            if (loaded.restored === undefined) tally.refused += 1;
            else if (isDeepStrictEqual(loaded.restored, snapshot)) tally.same += 1;
            else tally.different += 1;
            expect(loaded.restored, `bit ${bit} of byte ${index} flipped`).toBeUndefined();
          }
        },
      ),
      { numRuns: runs },
    );
    console.log(`snapshot-flips library ${JSON.stringify(tally)}`);
    expect(tally).toMatchObject({ flips: runs * flipsPerRun, different: 0 });
  });
});
