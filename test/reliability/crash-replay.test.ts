/**
 * Crash during replay: a child process (`fixtures/replay-worker.mjs`, on the
 * compiled build) replays a generated log of a few thousand envelopes, with
 * bad lines, undecodable events and conflicts, in small reads, writing an
 * atomic snapshot every K records; it is SIGKILLed at a random moment, one to
 * three times in a row (each run resumes from the snapshot the previous one
 * left). Then the test resumes: restore the last snapshot (if any), replay
 * the tail, and compare with an uninterrupted replay: state, checkpoint,
 * quarantine and audit trails must be identical, and no acknowledged snapshot
 * may be lost or torn. Iterations: 10 by default, 200 under stress. Needs
 * `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelopes,
  generateEvents,
  mulberry32,
  type WireEvent,
  writeNdjson,
} from '../../bench/generate-stream.js';
import { count, Figures, removeTempDirs, STRESS, tempDir } from './fixtures/reliability-helpers.js';

const WORKER = fileURLToPath(new URL('./fixtures/replay-worker.mjs', import.meta.url));
const ITERATIONS = count(10, 200);

const figures = new Figures('crash during replay');
afterAll(async () => {
  await removeTempDirs();
  figures.print();
});

/** The compiled modules, loaded by URL (type checking runs before the build); typed by their sources. */
const loadDist = async () => {
  const url = (file: string) => new URL(`../../dist/${file}`, import.meta.url).href;
  try {
    const index = (await import(url('index.js'))) as typeof import('../../src/index.js');
    const file = (await import(url('store/index.js'))) as typeof import('../../src/store/index.js');
    return { ...index, ...file };
  } catch (cause) {
    throw new Error(`crash-replay needs the build: run \`npm run build\` first (${String(cause)})`);
  }
};
type Dist = Awaited<ReturnType<typeof loadDist>>;

/** What the generated log holds besides clean events. */
interface LogContents {
  readonly lines: number;
  readonly badLines: number;
  readonly invalidEvents: number;
  readonly conflicts: number;
}

/**
 * Writes a log of envelopes (position = line number) built from
 * `generateEvents`, with a bad line every 97 lines, an undecodable event every
 * 89 and a conflicting one (another company's copy of a recent request event)
 * every 61.
 */
const writeLog = (path: string): LogContents => {
  const events = [...generateEvents({ seed: 20251121, signRequests: 300, companies: 3 })];
  const meta = envelopes(events, { seed: 5 });
  const lines: string[] = [];
  let badLines = 0;
  let invalidEvents = 0;
  let conflicts = 0;
  let lastRequestEvent: WireEvent | undefined;
  const envelope = (event: unknown, receivedAt: string, deliveryId: string) =>
    JSON.stringify({ position: lines.length + 1, receivedAt, deliveryId, event });
  for (const { event, receivedAt, deliveryId } of meta) {
    if ((lines.length + 1) % 97 === 0) {
      lines.push(`{"position":${lines.length + 1},"receivedAt":"2025-`);
      badLines += 1;
    } else if ((lines.length + 1) % 89 === 0) {
      lines.push(
        envelope({ ...event, companyId: String(event.companyId) }, receivedAt, `${deliveryId}-x`),
      );
      invalidEvents += 1;
    } else if ((lines.length + 1) % 61 === 0 && lastRequestEvent !== undefined) {
      lines.push(envelope({ ...lastRequestEvent, companyId: 999 }, receivedAt, `${deliveryId}-c`));
      conflicts += 1;
    }
    lines.push(envelope(event, receivedAt, deliveryId));
    if (typeof event.signRequestId === 'number') lastRequestEvent = event;
  }
  writeNdjson(path, lines);
  return { lines: lines.length, badLines, invalidEvents, conflicts };
};

/** A canonical text of everything a resumed replay must reproduce. */
const fingerprint = (dist: Dist, projector: ReturnType<Dist['createProjector']>): string =>
  JSON.stringify(dist.takeSnapshot(projector));

/** Replays `logPath` from `start` (a fresh projector when undefined) to the end. */
const replayAll = async (
  dist: Dist,
  logPath: string,
  projector = dist.createProjector(),
): Promise<ReturnType<Dist['createProjector']>> => {
  const replayed = await projector.replay({ read: (o) => dist.readFileEventLog(logPath, o) });
  if (replayed.isErr()) throw new Error(replayed.error.message);
  return projector;
};

interface Run {
  /** Checkpoints of the snapshots the child acknowledged, in order. */
  readonly snapshots: readonly number[];
  readonly started: number;
  readonly done: boolean;
  readonly elapsed: number;
}

/**
 * Runs the worker; kills it `killAfter(start checkpoint)` ms after it started
 * replaying, or once it is done when `killAfter` is undefined.
 */
const runWorker = (
  logPath: string,
  snapshotPath: string,
  every: number,
  chunkBytes: number,
  killAfter: ((started: number) => number) | undefined,
): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [WORKER, logPath, snapshotPath, String(every), String(chunkBytes)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let errors = '';
    let startedAt = 0;
    let doneAt = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      out += text;
      const start = /start (\d+)\n/.exec(out);
      if (startedAt === 0 && start !== null) {
        startedAt = performance.now();
        const delay = killAfter?.(Number(start[1]));
        if (delay !== undefined) setTimeout(() => child.kill('SIGKILL'), delay);
      }
      if (doneAt === 0 && out.includes('done ')) {
        doneAt = performance.now();
        if (killAfter === undefined) child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (text: Buffer) => {
      errors += text.toString();
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') {
        reject(new Error(`worker exited on its own: ${errors}`));
        return;
      }
      // Only complete lines count: a line cut by the kill was not acknowledged.
      const lines = out.split('\n').slice(0, -1);
      const started = Number(lines.find((l) => l.startsWith('start '))?.slice(6) ?? Number.NaN);
      resolve({
        snapshots: lines.filter((l) => l.startsWith('snapshot ')).map((l) => Number(l.slice(9))),
        started,
        done: lines.some((l) => l.startsWith('done ')),
        elapsed: (doneAt || performance.now()) - startedAt,
      });
    });
  });

describe('crash during replay (compiled build)', () => {
  let dist: Dist;
  let logPath: string;
  let contents: LogContents;
  let reference: string;
  let referenceCheckpoint: number;

  beforeAll(async () => {
    dist = await loadDist();
    logPath = join(await tempDir(), 'replay.ndjson');
    contents = writeLog(logPath);
    const uninterrupted = await replayAll(dist, logPath);
    reference = fingerprint(dist, uninterrupted);
    referenceCheckpoint = uninterrupted.checkpoint;
    const quarantine = uninterrupted.quarantine();
    expect(quarantine.filter((q) => q.reason.kind === 'bad-line')).toHaveLength(contents.badLines);
    expect(quarantine.filter((q) => q.reason.kind === 'invalid-event')).toHaveLength(
      contents.invalidEvents,
    );
    expect(
      quarantine.filter(
        (q) => q.reason.kind === 'conflict' && q.reason.conflict.kind === 'company-mismatch',
      ),
    ).toHaveLength(contents.conflicts);
    figures.set('log lines', contents.lines);
    figures.set('bad lines in the log', contents.badLines);
    figures.set('undecodable events in the log', contents.invalidEvents);
    figures.set('conflicts in the log', contents.conflicts);
  });

  it(
    `resumes to the uninterrupted result after ${ITERATIONS} runs of 1-3 SIGKILLs`,
    async () => {
      // Calibrate the kill window: two runs to completion, snapshotting often and rarely.
      const dir = await tempDir();
      const timeOf = async (every: number) => {
        const run = await runWorker(
          logPath,
          join(dir, `calibration-${every}.json`),
          every,
          4096,
          undefined,
        );
        expect(run.done).toBe(true);
        return run.elapsed;
      };
      const [often, rarely] = [await timeOf(20), await timeOf(2_000)];
      const perSnapshot = Math.max(0, (often - rarely) / (referenceCheckpoint / 20));
      /** Expected time to replay the rest of the log from `started`, snapshotting every `every`. */
      const expected = (every: number, started: number) => {
        const left = Math.max(0, referenceCheckpoint - started);
        return (rarely + perSnapshot * (left / every)) * (left / referenceCheckpoint);
      };
      figures.set('uninterrupted worker replay (ms)', Math.round(rarely));
      figures.set('cost of one snapshot write (µs)', Math.round(perSnapshot * 1000));

      const random = mulberry32(STRESS ? 2_000 : 1_000);
      const mismatches: string[] = [];
      for (let iteration = 0; iteration < ITERATIONS; iteration += 1) {
        const snapshotPath = join(dir, `snapshot-${iteration}.json`);
        const every = 10 + Math.floor(random() * 300);
        const chunkBytes = 512 + Math.floor(random() * 16_384);
        const kills = 1 + Math.floor(random() * 3);
        let acknowledged = 0;
        for (let k = 0; k < kills; k += 1) {
          const killAfter = (started: number) => random() * 1.1 * expected(every, started);
          const run = await runWorker(logPath, snapshotPath, every, chunkBytes, killAfter);
          figures.add('crashes injected (SIGKILL)');
          // A run resumes from the last acknowledged snapshot or a later one, never an earlier one.
          if (run.started < acknowledged) {
            mismatches.push(
              `#${iteration}: resumed at ${run.started} < acknowledged ${acknowledged}`,
            );
          }
          acknowledged = Math.max(acknowledged, ...run.snapshots);
          figures.add('snapshots acknowledged by killed workers', run.snapshots.length);
          if (run.done) figures.add('kills after the replay had finished');
          else if (run.snapshots.length === 0) figures.add('kills before the run wrote a snapshot');
          else figures.add('kills mid-replay after a snapshot');
        }

        // Resume: restore the last snapshot, if any, and replay the tail.
        const saved = await dist.readSnapshotFile(snapshotPath);
        let projector: ReturnType<Dist['createProjector']>;
        if (saved.isOk()) {
          const restored = dist.restoreProjector(saved.value);
          if (restored.isErr()) throw new Error(`torn snapshot: ${restored.error.message}`);
          projector = restored.value;
          figures.add('resumes from a snapshot');
        } else {
          expect(saved.error.code).toBe('ENOENT');
          expect(acknowledged).toBe(0);
          projector = dist.createProjector();
          figures.add('resumes from scratch (no snapshot yet)');
        }
        if (projector.checkpoint < acknowledged) {
          mismatches.push(
            `#${iteration}: snapshot at ${projector.checkpoint} < acknowledged ${acknowledged}`,
          );
        }
        figures.add('records replayed on resume', referenceCheckpoint - projector.checkpoint);
        await replayAll(dist, logPath, projector);
        if (fingerprint(dist, projector) !== reference) {
          mismatches.push(`#${iteration}: resumed state differs (every ${every}, ${kills} kills)`);
        }
        figures.add('resumed replays compared');
      }
      const leftovers = (await readdir(dir)).filter((name) => name.endsWith('.tmp'));
      figures.set('temporary snapshot files left by kills (never read)', leftovers.length);
      figures.set('losses / mismatches found', mismatches.length);
      expect(mismatches).toEqual([]);
    },
    STRESS ? 1_200_000 : undefined,
  );
});
