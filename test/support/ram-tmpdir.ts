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
const TMPFS_MAGIC = 0x01021994;

/** The run's peak is about 1.5 GiB (PostgreSQL clusters, the scratch install, the browser). */
const MIN_FREE_BYTES = 4 * 1024 ** 3;

/** `/dev/shm/signfold-tmp-UID` when `/dev/shm` is a tmpfs with room, else `undefined`. */
const memoryDir = (): string | undefined => {
  if (process.platform !== 'linux') return undefined;
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < MIN_FREE_BYTES) return undefined;
  } catch {
    return undefined;
  }
  return join('/dev/shm', `signfold-tmp-${process.getuid?.() ?? 'user'}`);
};

/** The directory this run's temp files go to, if not the system's default. */
const chosenDir = (): string | undefined => {
  const named = process.env[TEST_TMPDIR_VARIABLE];
  if (named !== undefined) return named === '' ? undefined : named;
  if (process.env.TMPDIR !== undefined && process.env.TMPDIR !== '') return undefined;
  return memoryDir();
};

export default function ramTmpdir(): () => void {
  const dir = chosenDir();
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
