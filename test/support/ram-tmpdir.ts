/**
 * Vitest global setup: the run's temporary files in memory where the machine has a memory file
 * system to spare. Every temp dir of the run (logs, PostgreSQL clusters, scratch applications)
 * comes from `os.tmpdir()`, which reads `TMPDIR`; set here, before the workers start, it holds for
 * them, their children and the servers they start.
 *
 * Why: the suite is CPU-bound on 2 cores, and on a disk file system a third of its CPU is the
 * kernel's; every fsync of the file log (tests append, snapshot and kill by the thousand) commits
 * a journal there. On tmpfs an fsync returns at once: the same run of test/store, test/reliability
 * and test/webhooks took about 10 % less CPU. No test depends on the disk: a killed process loses
 * what it had not written either way, and a lost power supply is not something a test can do.
 *
 * Only on Linux, only when `/dev/shm` is a tmpfs with at least {@link MIN_FREE_BYTES} free (a
 * container's 64 MB would fill), and never over a `TMPDIR` the caller set; `SIGNFOLD_TEST_TMPDIR`
 * names a directory to use instead, and `SIGNFOLD_TEST_TMPDIR=` (empty) turns it off.
 */
import { chmodSync, mkdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** The variable that names the run's temporary directory, or (empty) keeps the system's. */
export const TEST_TMPDIR_VARIABLE = 'SIGNFOLD_TEST_TMPDIR';

/** Linux's magic number of a tmpfs in `statfs(2)`. */
export const TMPFS_MAGIC = 0x01021994;

/**
 * A run's peak in /dev/shm was 604 MB (sampled every 2 s), 206 MB of it the browser's unpacked
 * copy, which stays: room for two runs at once with the rest of the machine's use of it.
 */
export const MIN_FREE_BYTES = 4 * 1024 ** 3;

/** What {@link runTmpdir} reads of the machine: its platform, and `statfs` of a path. */
export interface TmpdirMachine {
  readonly platform: NodeJS.Platform;
  readonly uid: number | string;
  /** `statfs(2)` of `path`; throws where there is none. */
  statfs(path: string): { readonly type: number; readonly bavail: number; readonly bsize: number };
}

const THIS_MACHINE: TmpdirMachine = {
  platform: process.platform,
  uid: process.getuid?.() ?? 'user',
  statfs: (path) => statfsSync(path),
};

/** `/dev/shm/signfold-tmp-UID` when `/dev/shm` is a tmpfs with room, else `undefined`. */
const memoryDir = (machine: TmpdirMachine): string | undefined => {
  if (machine.platform !== 'linux') return undefined;
  try {
    const fs = machine.statfs('/dev/shm');
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < MIN_FREE_BYTES) return undefined;
  } catch {
    return undefined;
  }
  return join('/dev/shm', `signfold-tmp-${machine.uid}`);
};

/**
 * The directory the run's temp files go to, or `undefined` for the system's default: the one
 * {@link TEST_TMPDIR_VARIABLE} names (none if it is empty), else none if `TMPDIR` is set, else a
 * directory in `/dev/shm` where that is a tmpfs with room.
 */
export const runTmpdir = (
  env: Readonly<Record<string, string | undefined>>,
  machine: TmpdirMachine = THIS_MACHINE,
): string | undefined => {
  const named = env[TEST_TMPDIR_VARIABLE];
  if (named !== undefined) return named === '' ? undefined : named;
  if (env.TMPDIR !== undefined && env.TMPDIR !== '') return undefined;
  return memoryDir(machine);
};

/** Sets `TMPDIR` for the run (see the file's comment); the teardown gives back the one before. */
export default function ramTmpdir(): () => void {
  const dir = runTmpdir(process.env);
  if (dir === undefined) return () => {};
  // Kept between runs: the browser's unpacked copy there is reused (each test removes its own).
  // Others may pass through, not list: as root, PostgreSQL runs as another user and must reach
  // the directory it was given inside (/tmp itself is open to all).
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o711);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  };
}
