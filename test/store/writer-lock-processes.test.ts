/**
 * The writer lock across real processes (compiled build; `npm run build` first):
 * two writers started at once, a writer SIGKILLed at random moments and
 * replaced at once, openers racing for a stale lock, and exit without close.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { Figures } from '../reliability/fixtures/reliability-helpers.js';
import { readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';
import { ackedIds, startWriter, type WriterRun } from './fixtures/writer-process.js';

afterAll(removeTempDirs);

const WRITER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'lock-writer.mjs');
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const KILLS = process.env.SIGNFOLD_STRESS ? 200 : 20;
/** `<log>.lock.<pid>.<token>` (or `.lock.break.…`): what an opener killed mid-way leaves. */
const SCRATCH = /\.lock(\.break)?\.\d+\.[0-9a-f]{24}$/;

const start = (path: string, prefix: string, count: number, ending = 'close'): WriterRun =>
  startWriter(WRITER, [path, prefix, String(count), ending]);

/** Delivery ids of the entries in the log, and the count of bad lines. */
const contents = async (path: string) => {
  const records = await readAll(readFileEventLog(path));
  const ids = records.flatMap((r) => (r.kind === 'entry' ? [r.deliveryId ?? ''] : []));
  return { ids, bad: records.filter((r) => r.kind === 'bad-line').length };
};

describe('writer lock across processes (compiled build)', () => {
  it('lets one of two writers started at once append; the other is refused and writes nothing', async () => {
    const path = join(await tempDir(), 'two.ndjson');
    // The winner keeps the log open after its appends, so the loser cannot be a later turn.
    const runs = [start(path, 'a', 3000, 'wait'), start(path, 'b', 3000, 'wait')];
    await Promise.all(
      runs.map((run) => Promise.race([run.printed('done'), run.finished.then(() => undefined)])),
    );
    for (const run of runs) run.child.kill('SIGKILL');
    const results = await Promise.all(runs.map((run) => run.finished));
    const winners = results.filter((result) => result.out.includes('done\n'));
    const refused = results.filter((result) => result.code === 3);
    expect(winners).toHaveLength(1);
    expect(refused).toHaveLength(1);
    const error = JSON.parse(refused[0]?.out.slice('locked '.length) ?? '{}');
    expect(error).toMatchObject({ kind: 'locked', path, lockPath: `${path}.lock` });
    expect(error.message).toMatch(/is locked by pid \d+ on .+ since \d{4}-/);
    const winner = results.indexOf(winners[0] as (typeof results)[number]) === 0 ? 'a' : 'b';
    const acked = ackedIds(winners[0]?.out ?? '', winner);
    expect(acked).toHaveLength(3000);
    const { ids, bad } = await contents(path);
    expect(bad).toBe(0);
    expect(ids.sort()).toEqual(acked.sort());
    // The refused opener left nothing behind: no scratch or torn files (the lock is the winner's).
    expect((await readdir(dirname(path))).sort()).toEqual(['two.ndjson', 'two.ndjson.lock']);
  });

  it(`takes over the lock of a writer SIGKILLed at random moments (${KILLS} times), losing nothing acknowledged`, async () => {
    const path = join(await tempDir(), 'killed.ndjson');
    const acked: string[] = [];
    let stale = 0;
    let scratch = 0;
    for (let round = 0; round < KILLS; round += 1) {
      const run = start(path, `k${round}`, 1_000_000);
      // Odd rounds: anywhere from start-up (before or while opening) on; even rounds: while
      // holding the lock, mid-append.
      const delay = Math.floor(Math.random() * 120);
      if (round % 2 === 1) setTimeout(() => run.child.kill('SIGKILL'), delay * 2);
      else void run.printed('open').then(() => setTimeout(() => run.child.kill('SIGKILL'), delay));
      const { out } = await run.finished;
      acked.push(...ackedIds(out, `k${round}`));
      if (await stat(`${path}.lock`).catch(() => undefined)) stale += 1;
      scratch += (await readdir(dirname(path))).filter((name) => SCRATCH.test(name)).length;
    }
    // Reopen at once: the lock of the dead writer must not block.
    const last = start(path, 'final', 10);
    const { code, out } = await last.finished;
    expect(code).toBe(0);
    expect(ackedIds(out, 'final')).toHaveLength(10);
    const { ids, bad } = await contents(path);
    const stored = new Set(ids);
    expect(ids.length).toBe(stored.size);
    expect(acked.filter((id) => !stored.has(id))).toEqual([]);
    // A torn final line may be set aside, never left as a bad line.
    expect(bad).toBe(0);
    // At least every even round left its lock behind for the next writer to take over.
    expect(stale).toBeGreaterThanOrEqual(KILLS / 2);
    // Scratch files of openers killed while creating the lock were removed by the next holder.
    expect((await readdir(dirname(path))).filter((name) => SCRATCH.test(name))).toEqual([]);
    const figures = new Figures('writer lock: SIGKILLed writers');
    figures.set('SIGKILLs', KILLS);
    figures.set('stale locks left and taken over at once', stale);
    figures.set('scratch files left by a kill (all removed)', scratch);
    figures.set('acknowledged appends', acked.length);
    figures.set('acknowledged appends lost', acked.filter((id) => !stored.has(id)).length);
    figures.print();
  });

  it('removes the scratch file of an opener SIGKILLed while creating the lock', async () => {
    const path = join(await tempDir(), 'scratch.ndjson');
    const dist = new URL('../../dist/store/file-event-log.js', import.meta.url).href;
    // Opens and closes the log in a loop: each open creates and removes a scratch file.
    const loop =
      `const { openFileEventLog } = await import(${JSON.stringify(dist)});` +
      `for (;;) { const r = await openFileEventLog(${JSON.stringify(path)}); if (r.isOk()) await r.value.close(); }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', loop]);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const pid = child.pid ?? 0;
    const stopped = async () => {
      while (!/^\d+ \(.*\) T/.test(await readFile(`/proc/${pid}/stat`, 'utf8'))) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const scratchFiles = async () =>
      (await readdir(dirname(path))).filter((name) => SCRATCH.test(name));
    // Freeze the loop (SIGSTOP) at random moments until it is caught holding a scratch file.
    let left: string[] = [];
    // A stop lands in the window often enough; a busy machine makes each try slower, so the
    // deadline is far beyond what it takes.
    const until = Date.now() + 120_000;
    while (left.length === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      child.kill('SIGSTOP');
      await stopped();
      left = await scratchFiles();
      child.kill(left.length === 0 ? 'SIGCONT' : 'SIGKILL');
    }
    child.kill('SIGKILL');
    await exited;
    expect(left.length).toBeGreaterThan(0);
    const { code } = await start(path, 'after', 1).finished;
    expect(code).toBe(0);
    expect((await readdir(dirname(path))).filter((name) => SCRATCH.test(name))).toEqual([]);
  });

  it('lets exactly one of several processes racing for a stale lock win', async () => {
    for (let round = 0; round < 5; round += 1) {
      const path = join(await tempDir(), 'race.ndjson');
      const dead = start(path, 'dead', 0, 'wait');
      await dead.printed('done');
      dead.child.kill('SIGKILL');
      await dead.finished;
      // Racers keep the log open once they have it, so a second winner cannot be a later turn.
      const racers = [0, 1, 2, 3].map((n) => start(path, `r${n}`, 50, 'wait'));
      const outcomes = await Promise.all(
        racers.map((run) =>
          Promise.race([run.printed('done').then(() => 'won'), run.finished.then(() => 'refused')]),
        ),
      );
      for (const run of racers) run.child.kill('SIGKILL');
      const results = await Promise.all(racers.map((run) => run.finished));
      expect(outcomes.filter((outcome) => outcome === 'won')).toHaveLength(1);
      expect(results.filter((result) => result.out.startsWith('locked '))).toHaveLength(3);
      expect((await contents(path)).ids).toHaveLength(50);
    }
  });

  it('removes its lock when the process exits without closing the log', async () => {
    const path = join(await tempDir(), 'exit.ndjson');
    const { code } = await start(path, 'e', 5, 'exit').finished;
    expect(code).toBe(0);
    await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('lets readers and the CLI read a log whose writer holds the lock', async () => {
    const path = join(await tempDir(), 'read.ndjson');
    const writer = start(path, 'w', 20, 'wait');
    await writer.printed('done');
    try {
      expect(JSON.parse(await readFile(`${path}.lock`, 'utf8'))).toMatchObject({
        pid: writer.child.pid,
      });
      expect((await contents(path)).ids).toHaveLength(20);
      const cli = spawnSync(process.execPath, [CLI, 'replay', path, '--json'], {
        encoding: 'utf8',
      });
      expect(cli.status).toBe(0);
      expect(JSON.parse(cli.stdout)).toMatchObject({ processed: 20, checkpoint: 20 });
    } finally {
      writer.child.kill('SIGKILL');
      await writer.finished;
    }
  });

  it('refuses while the holder lives, and takes the lock at once after it dies', async () => {
    const path = join(await tempDir(), 'live.ndjson');
    const writer = start(path, 'w', 1, 'wait');
    await writer.printed('done');
    const second = await start(path, 'x', 1).finished;
    expect(second.code).toBe(3);
    expect(second.out).toContain(`"pid":${writer.child.pid}`);
    writer.child.kill('SIGKILL');
    await writer.finished;
    const third = await start(path, 'y', 1).finished;
    expect(third.code).toBe(0);
    expect((await contents(path)).ids).toEqual(['w-0', 'y-0']);
  });
});
