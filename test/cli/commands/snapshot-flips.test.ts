/**
 * `replay --from-snapshot` with a damaged snapshot written by the CLI
 * (finding 3 of issue 21): no single-bit flip may resume as another state.
 * Without a checksum a flipped checkpoint digit dropped the tail as
 * `already-applied`, or re-applied it as conflicts, and exited 0.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count } from '../../reliability/fixtures/reliability-helpers.js';
import {
  MIXED_LOG,
  removeTempDirs,
  runCli,
  runCliHere,
  tempDir,
  writeFixture,
} from '../cli-helpers.js';

afterAll(removeTempDirs);

/** A flip: a byte (taken modulo the file's length) and a bit; unbiased, so every byte is as likely. */
const flipArb = fc.tuple(fc.noBias(fc.nat({ max: 2 ** 30 })), fc.noBias(fc.nat(7)));

const flipped = (bytes: Uint8Array, [where, bit]: [number, number]): Uint8Array => {
  const damaged = Uint8Array.from(bytes);
  const index = where % damaged.length;
  damaged[index] = (damaged[index] ?? 0) ^ (1 << bit);
  return damaged;
};

describe('replay --from-snapshot with single-bit flips of a CLI snapshot', () => {
  let log = '';
  let dir = '';
  let bytes: Buffer = Buffer.alloc(0);
  let expected = '';

  beforeAll(async () => {
    log = await writeFixture('events.ndjson', MIXED_LOG);
    dir = await tempDir();
    const snapshot = join(dir, 'state.snapshot.json');
    // Snapshot mid-log, so resuming has a tail to replay.
    expect((await runCli(['replay', log, '--until', '6', '--snapshot', snapshot])).code).toBe(0);
    bytes = await readFile(snapshot);
    const intact = await runCliHere(['replay', log, '--from-snapshot', snapshot, '--json']);
    expect(intact.code).toBe(0);
    expected = intact.stdout;
  });

  const flips = count(150, 2000);

  it(`never resume as a different state (${flips} flips, in process)`, async () => {
    const path = join(dir, 'flipped.snapshot.json');
    const tally = { flips: 0, refused: 0, same: 0, different: 0 };
    await fc.assert(
      fc.asyncProperty(flipArb, async (flip) => {
        await writeFile(path, flipped(bytes, flip));
        const resumed = await runCliHere(['replay', log, '--from-snapshot', path, '--json']);
        tally.flips += 1;
        if (resumed.code === 2) tally.refused += 1;
        else if (resumed.stdout === expected) tally.same += 1;
        else tally.different += 1;
        expect(resumed.code, `bit ${flip[1]} of byte ${flip[0] % bytes.length}`).toBe(2);
        expect(resumed.stdout).toBe('');
        expect(resumed.stderr).toMatch(/^signfold: [^\n]+\n$/);
      }),
      { numRuns: flips },
    );
    console.log(`snapshot-flips cli ${JSON.stringify(tally)}`);
    expect(tally).toMatchObject({ flips, different: 0 });
  });

  it('the built CLI refuses a flipped checkpoint digit: exit 2, one line, nothing on stdout', async () => {
    const text = bytes.toString('utf8');
    const at = text.indexOf('"checkpoint":6') + '"checkpoint":'.length;
    expect(at).toBeGreaterThan(20);
    // '6' (0x36) to '2' (0x32) and to '7' (0x37): an earlier and a later checkpoint.
    for (const bit of [2, 0]) {
      const path = join(dir, `digit-${bit}.snapshot.json`);
      await writeFile(path, flipped(bytes, [at, bit]));
      for (const extra of [[], ['--json']]) {
        const resumed = await runCli(['replay', log, '--from-snapshot', path, ...extra]);
        expect(resumed.code).toBe(2);
        expect(resumed.stdout).toBe('');
        expect(resumed.stderr).toBe(
          `signfold: ${path}: snapshot checksum does not match its content; the file is damaged or was edited\n`,
        );
      }
    }
  });

  it('the built CLI refuses invalid UTF-8 and a version 1 snapshot in one line', async () => {
    const text = bytes.toString('utf8');
    const broken = join(dir, 'not-utf8.snapshot.json');
    const at = text.indexOf('"checkpoint"');
    await writeFile(
      broken,
      Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]),
    );
    const refused = await runCli(['replay', log, '--from-snapshot', broken]);
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      2,
      '',
      `signfold: ${broken}: not a snapshot (invalid UTF-8)\n`,
    ]);

    const old = join(dir, 'v1.snapshot.json');
    const { checksum: _checksum, ...value } = JSON.parse(text) as Record<string, unknown>;
    await writeFile(old, JSON.stringify({ ...value, version: 1 }));
    const v1 = await runCli(['replay', log, '--from-snapshot', old]);
    expect(v1.code).toBe(2);
    expect(v1.stdout).toBe('');
    expect(v1.stderr).toMatch(
      /^signfold: .*: snapshot format version 1 has no checksum and is no longer read \(this build reads version 4\); replay the log from the start and take a new snapshot\n$/,
    );
  });
});
