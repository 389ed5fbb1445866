/**
 * A stalled writer must never have a pending write land after another writer
 * took over (compiled build; `npm run build` first). Real processes: writer A
 * appends with 16 appends in flight and is stalled, either (a) by a stall of
 * its libuv thread pool (four opens of FIFOs nobody writes to, with appends
 * queued behind them, heartbeat included) or (b) by SIGSTOP. Meanwhile its
 * lock's heartbeat ages past `staleAfterMs` (300 ms, or the default 30 s,
 * whose expiry is simulated by backdating the lock file), and writer B tries
 * to open the log and append. Then A resumes. Every acknowledged append must
 * be stored, with no bad line and no position used twice.
 */
import { spawnSync } from 'node:child_process';
import { readFile, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { count, Figures } from '../reliability/fixtures/reliability-helpers.js';
import { eventually } from '../support/eventually.js';
import { readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';
import { ackedIds, startWriter, type WriterRun } from './fixtures/writer-process.js';

afterAll(removeTempDirs);

const WRITER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'stall-writer.mjs');
const TRIALS = count(2, 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const start = (args: readonly string[]): WriterRun =>
  // The thread pool stall below needs the default four threads.
  startWriter(WRITER, args, { stdin: 'pipe', env: { UV_THREADPOOL_SIZE: '4' } });

/** What the log holds: delivery ids, bad lines, and envelope positions used more than once. */
const stored = async (path: string) => {
  const records = await readAll(readFileEventLog(path));
  const ids = new Set(records.flatMap((r) => (r.kind === 'entry' ? [r.deliveryId ?? ''] : [])));
  const bad = records.filter((r) => r.kind === 'bad-line').length;
  // Positions as written, read from the raw lines (the reader would turn a repeat into a bad line).
  const seen = new Set<number>();
  let repeated = 0;
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    try {
      const { position } = JSON.parse(line) as { position?: unknown };
      if (typeof position !== 'number') continue;
      if (seen.has(position)) repeated += 1;
      seen.add(position);
    } catch {
      // Counted as a bad line above.
    }
  }
  return { ids, bad, repeated };
};

type Stall = 'thread pool' | 'SIGSTOP';
type Stale = '300' | 'default';

const figures = new Figures('writer lock: stalled writers');
afterAll(() => figures.print());

/** One trial: A stalls, B tries to take over, A resumes. Returns what was acknowledged and kept. */
const trial = async (stall: Stall, stale: Stale) => {
  const dir = await tempDir();
  const path = join(dir, 'stall.ndjson');
  for (let n = 0; n < 4; n += 1) spawnSync('mkfifo', [join(dir, `fifo-${n}`)]);
  const a = start([path, 'a', stale, dir]);
  await a.printed('acked 40');
  if (stall === 'thread pool') {
    a.child.stdin?.write('stall\n');
    await a.printed('stalling');
  } else {
    // Anywhere in A's commit cycle: between its fence check and its write, or not.
    await sleep(Math.random() * 20);
    a.child.kill('SIGSTOP');
  }
  // The heartbeat cannot be refreshed now: let it expire (or, for the default 30 s, pretend).
  if (stale === 'default') {
    await sleep(100);
    const then = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, then, then);
  } else {
    await sleep(Number(stale) * 2);
  }
  const b = await start([path, 'b', stale, dir, '30']).finished;
  const beforeResume = a.output().length;
  if (stall === 'thread pool') {
    // Give each blocked open its writer, which lets A's queued writes through.
    for (let n = 0; n < 4; n += 1) {
      spawnSync('sh', ['-c', `: > "${join(dir, `fifo-${n}`)}"`]);
    }
  } else {
    a.child.kill('SIGCONT');
  }
  // Once it acknowledged an append again (however long a busy machine takes to run it), stop it.
  await eventually(
    () => ackedIds(a.output().slice(beforeResume), 'a').length > 0,
    'the resumed writer to acknowledge an append',
  );
  a.child.stdin?.write('stop\n');
  const { out } = await a.finished;
  const acked = [...ackedIds(out, 'a'), ...ackedIds(b.out, 'b')];
  const kept = await stored(path);
  const lost = acked.filter((id) => !kept.ids.has(id)).length;
  figures.add(`${stall}, stale ${stale}: trials`);
  figures.add(`${stall}, stale ${stale}: acknowledged`, acked.length);
  figures.add(`${stall}, stale ${stale}: lost`, lost);
  figures.add(`${stall}, stale ${stale}: bad lines`, kept.bad);
  figures.add(`${stall}, stale ${stale}: takeovers refused`, b.code === 3 ? 1 : 0);
  // The stalled writer carries on where it was: its queued appends are acknowledged after it resumes.
  const afterResume = ackedIds(out.slice(beforeResume), 'a').length;
  return { lost, bad: kept.bad, repeated: kept.repeated, b, afterResume };
};

describe('writer lock: a stalled writer (thread pool stall or SIGSTOP) and a second writer', () => {
  for (const stall of ['thread pool', 'SIGSTOP'] as const) {
    for (const stale of ['300', 'default'] as const) {
      it(`loses nothing when A is stalled by ${stall} past staleAfterMs ${stale} (${TRIALS} trials)`, async () => {
        for (let round = 0; round < TRIALS; round += 1) {
          const { lost, bad, repeated, b, afterResume } = await trial(stall, stale);
          expect({ lost, bad, repeated }).toEqual({ lost: 0, bad: 0, repeated: 0 });
          expect(afterResume).toBeGreaterThan(0);
          // The holder is alive on this host: its lock is never broken, however old its heartbeat.
          expect(b.code).toBe(3);
          const error = JSON.parse(b.out.slice('locked '.length));
          expect(error).toMatchObject({ kind: 'locked', path: expect.any(String) });
          expect(error.message).toMatch(/heartbeat \d+(\.\d+)? s ago/);
        }
      });
    }
  }
});
