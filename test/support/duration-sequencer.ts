/**
 * The order test files start in: the longest first, so that the run does not end with one long
 * file on one core while the other idles. Vitest does that from its own cache of the last run's
 * durations; a fresh clone (CI) has none, and vitest then starts the largest files first, which
 * are not the long ones (those wait on processes and servers). There the durations of a quiet run
 * kept in `file-durations.json` stand in (`node scripts/write-test-durations.js` writes them
 * again); a file in neither goes first, as vitest does with unknown files. A file that failed last
 * time still runs first.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds by path from the repository root, as a quiet run measured them. */
const KEPT: Readonly<Record<string, number>> = JSON.parse(
  readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'),
);

/** How a file is ranked: whether it failed last time, and how long it takes (ms), if known. */
export interface FileRank {
  readonly failed: boolean;
  readonly durationMs: number | undefined;
}

/** Orders ranked files: failed first, then unknown ones, then the longest first. Stable. */
export const longestFirst = <T>(files: readonly T[], rank: (file: T) => FileRank): T[] =>
  files
    .map((file, index) => ({ file, index, ...rank(file) }))
    .sort(
      (a, b) =>
        Number(b.failed) - Number(a.failed) ||
        Number(b.durationMs === undefined) - Number(a.durationMs === undefined) ||
        (b.durationMs ?? 0) - (a.durationMs ?? 0) ||
        a.index - b.index,
    )
    .map(({ file }) => file);

/** Vitest's sequencer with the kept durations as the fallback of its cache. */
export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    return longestFirst(files, (file) => {
      const path = relative(config.root, file.moduleId);
      const cached = cache.getFileTestResults(`${file.project.name}:${path}`);
      const kept = KEPT[path];
      return {
        failed: cached?.failed ?? false,
        durationMs: cached?.duration ?? (kept === undefined ? undefined : kept * 1000),
      };
    });
  }
}
