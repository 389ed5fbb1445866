/**
 * `signfold forget` killed (SIGKILL) at random moments, 20 times: the log is always the old file or
 * the new one, never a mix and never shorter; a second forget finishes the job with the pseudonym the
 * first one recorded; no byte of the name is left in the log, its journal or its snapshot.
 */
import { copyFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetFileLog } from '../../../src/store/forget/forget-file-log.js';
import {
  envelope,
  participantEvent,
  ROOT,
  removeTempDirs,
  runCli,
  startCli,
  tempDir,
} from '../cli-helpers.js';

const NAME = 'Wqxz Killingsworth-Oy';
const RUNS = 20;
const LINES = 2_000;
const REACTORS = join(ROOT, 'test/fixtures/reactors/name-copier.mjs');
const FILES = ['events.ndjson', 'events.ndjson.reactors', 'state.snapshot'];

/** A log where participant 7 of every tenth request is the person; the others are strangers. */
const logText = (): string => {
  const lines: string[] = [];
  for (let i = 1; i <= LINES; i += 1) {
    const request = 1000 + Math.floor(i / 3);
    const participant = request % 10 === 0 ? 7 : 100 + (request % 50);
    const type = ['participant-sent', 'participant-viewed', 'participant-signed'][i % 3] as string;
    const event = participantEvent(type, request, participant, type !== 'participant-viewed');
    lines.push(
      envelope(i, participant === 7 ? { ...event, partcipantName: NAME } : event, `d${i}`),
    );
  }
  return `${lines.join('\n')}\n`;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const ledgerPseudonym = async (dir: string): Promise<string | undefined> => {
  const text = await readFile(join(dir, 'events.ndjson.erasures'), 'utf8').catch(() => '');
  return text.match(/forgotten-[0-9a-f]{16}/)?.[0];
};

afterAll(removeTempDirs);

describe('forget under SIGKILL', () => {
  let source: string;
  let original: string;
  let reference: { log: string; pseudonym: string };
  let fullMs: number;

  beforeAll(async () => {
    source = await tempDir();
    original = logText();
    await writeFile(join(source, 'events.ndjson'), original);
    const react = await runCli([
      'react',
      join(source, 'events.ndjson'),
      '--reactors',
      REACTORS,
      '--drain',
    ]);
    expect(react.code, react.stderr).toBe(0);
    const snap = await runCli([
      'replay',
      join(source, 'events.ndjson'),
      '--snapshot',
      join(source, 'state.snapshot'),
    ]);
    expect(snap.code, snap.stderr).toBe(0);
    // The reference: one forget that was not interrupted.
    const dir = await copyOf(source);
    const started = Date.now();
    const run = await runCli([
      'forget',
      join(dir, 'events.ndjson'),
      '--participant',
      '7',
      '--json',
    ]);
    fullMs = Date.now() - started;
    expect(run.code, run.stderr).toBe(0);
    reference = {
      log: await readFile(join(dir, 'events.ndjson'), 'utf8'),
      pseudonym: JSON.parse(run.stdout).pseudonym,
    };
  }, 120_000);

  const copyOf = async (from: string): Promise<string> => {
    const dir = await tempDir();
    for (const file of FILES) await copyFile(join(from, file), join(dir, file));
    return dir;
  };

  it(`leaves the old log or the new one, and a second forget finishes (${RUNS} kills)`, async () => {
    let old = 0;
    let midway = 0;
    let rewritten = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const dir = await copyOf(source);
      const log = join(dir, 'events.ndjson');
      const forget = startCli(['forget', log, '--participant', '7']);
      if (run < RUNS - 4) {
        // Spread the kills over the whole run, start to end (a process start included), with jitter.
        await sleep(Math.floor(((run + Math.random()) / (RUNS - 4)) * fullMs));
      } else {
        // The last four: as soon as the new log is renamed in, before the ledger says done.
        const inode = (await stat(log)).ino;
        const until = Date.now() + 60_000;
        while (
          (await stat(log)).ino === inode &&
          forget.child.exitCode === null &&
          Date.now() < until
        ) {
          await sleep(1);
        }
      }
      forget.child.kill('SIGKILL');
      await forget.closed;
      const killedAt = await readFile(log, 'utf8');
      const started = await ledgerPseudonym(dir);
      if (killedAt === original) {
        old += 1;
        if (started !== undefined) midway += 1;
      } else {
        rewritten += 1;
        expect(started).toBeDefined();
        expect(killedAt).toBe(reference.log.replaceAll(reference.pseudonym, started as string));
      }
      // The second forget in this process: the same code as the command, without a process start.
      const again = await forgetFileLog(log, {
        participantIds: [7],
        userIds: [],
        names: [],
        dryRun: false,
      });
      const { pseudonym, remaining } = again._unsafeUnwrap();
      expect(remaining).toEqual([]);
      if (started !== undefined) expect(pseudonym).toBe(started);
      expect(await readFile(log, 'utf8')).toBe(
        reference.log.replaceAll(reference.pseudonym, pseudonym),
      );
      for (const file of await readdir(dir)) {
        expect((await readFile(join(dir, file))).includes(Buffer.from(NAME)), file).toBe(false);
      }
    }
    expect(old + rewritten).toBe(RUNS);
    // The kills did land before the rename and after it.
    expect(rewritten).toBeGreaterThan(0);
    expect(old).toBeGreaterThan(0);
    console.log(
      `forget took ${fullMs} ms uninterrupted; killed runs left the old log ${old} times (${midway} after its ledger entry), the new one ${rewritten}`,
    );
  }, 240_000);
});
