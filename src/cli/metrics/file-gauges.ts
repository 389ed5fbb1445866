/**
 * The gauges of the file engine (`react`, `serve --log --reactors`), read
 * from the runner in memory at each scrape. A file log's positions are not
 * its lines and the runner reads the whole log at each look, so its lag is
 * told in what it has not read: the records (complete lines) appended past
 * the size the last look started from, and since when they may have waited
 * (that look's start). Counting them reads only the bytes past that size,
 * and each scrape resumes where the previous one stopped counting.
 */
import { open, stat } from 'node:fs/promises';
import type { FileReactorRunner } from '../../store/reactors/file-reactor-runner.js';
import type { GaugeReader } from './projection-metrics.js';

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** Newlines counted from `from` up to `to`, kept between scrapes while `from` holds. */
interface LineCount {
  from: number;
  to: number;
  lines: number;
}

/** Counts the newlines of `path` between `count.to` and `size`, adding them to `count`. */
const countLines = async (path: string, count: LineCount, size: number): Promise<void> => {
  if (size <= count.to) return;
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    while (count.to < size) {
      const { bytesRead } = await file.read(
        buffer,
        0,
        Math.min(CHUNK_BYTES, size - count.to),
        count.to,
      );
      if (bytesRead === 0) break;
      for (let i = 0; i < bytesRead; i += 1) if (buffer[i] === NEWLINE) count.lines += 1;
      count.to += bytesRead;
    }
  } finally {
    await file.close();
  }
};

/** The gauge reader of a runner on `logPath`. */
export const fileGaugeReader = (
  logPath: string,
  runner: FileReactorRunner,
  now: () => number = Date.now,
): GaugeReader => {
  let count: LineCount = { from: 0, to: 0, lines: 0 };
  return async () => {
    const progress = runner.progress();
    const report = runner.report();
    const { size } = await stat(logPath);
    if (count.from !== progress.lookedAtBytes || size < count.to) {
      count = { from: progress.lookedAtBytes, to: progress.lookedAtBytes, lines: 0 };
    }
    await countLines(logPath, count, size);
    const waiting = progress.lookedAt === undefined ? 0 : (now() - progress.lookedAt) / 1000;
    const earliest = new Map<string, number>();
    for (const timer of report.timers) {
      const due = Date.parse(timer.dueAt);
      if (!earliest.has(timer.reactor) || due < (earliest.get(timer.reactor) as number)) {
        earliest.set(timer.reactor, due);
      }
    }
    return {
      lag: [{ events: count.lines, seconds: count.lines === 0 ? 0 : Math.max(0, waiting) }],
      effects: report.reactors.map((row) => {
        const running = progress.running.get(row.name) ?? 0;
        return {
          reactor: row.name,
          // An attempt in progress is still pending in the book: counted once, as running.
          pending: Math.max(0, row.pending - running),
          parked: row.parked,
          running,
          nextTimerMs: earliest.get(row.name) ?? null,
        };
      }),
      stats: progress.stats,
    };
  };
};
