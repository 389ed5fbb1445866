/** Where the test run's temporary files go (ram-tmpdir.ts): memory only when it is safe to. */
import { describe, expect, it } from 'vitest';
import { MIN_FREE_BYTES, runTmpdir, TMPFS_MAGIC, type TmpdirMachine } from './ram-tmpdir.js';

const EXT4_MAGIC = 0xef53;

/** A machine whose `/dev/shm` is of `type` with `free` bytes available. */
const machine = (
  type: number,
  free: number,
  platform: NodeJS.Platform = 'linux',
): TmpdirMachine => ({
  platform,
  uid: 1000,
  statfs: (path) => {
    if (path !== '/dev/shm') throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return { type, bavail: free / 4096, bsize: 4096 };
  },
});
const roomy = machine(TMPFS_MAGIC, MIN_FREE_BYTES);

describe('the test run’s temporary directory', () => {
  it('is in /dev/shm, named for the user, when it is a tmpfs with room and TMPDIR is unset', () => {
    expect(runTmpdir({}, roomy)).toBe('/dev/shm/signfold-tmp-1000');
    expect(runTmpdir({ TMPDIR: '' }, roomy)).toBe('/dev/shm/signfold-tmp-1000');
  });

  it('stays the system’s where memory would not do: too small, not a tmpfs, absent, not Linux', () => {
    expect(runTmpdir({}, machine(TMPFS_MAGIC, MIN_FREE_BYTES - 4096))).toBeUndefined();
    expect(runTmpdir({}, machine(TMPFS_MAGIC, 64 * 1024 ** 2))).toBeUndefined();
    expect(runTmpdir({}, machine(EXT4_MAGIC, 100 * 1024 ** 3))).toBeUndefined();
    expect(runTmpdir({}, { ...roomy, statfs: () => roomy.statfs('/nowhere') })).toBeUndefined();
    expect(runTmpdir({}, machine(TMPFS_MAGIC, MIN_FREE_BYTES, 'darwin'))).toBeUndefined();
  });

  it('never overrides a TMPDIR the caller set', () => {
    expect(runTmpdir({ TMPDIR: '/var/tmp' }, roomy)).toBeUndefined();
  });

  it('is the one SIGNFOLD_TEST_TMPDIR names, or the system’s when it is set empty', () => {
    expect(runTmpdir({ SIGNFOLD_TEST_TMPDIR: '/mnt/fast' }, roomy)).toBe('/mnt/fast');
    expect(runTmpdir({ SIGNFOLD_TEST_TMPDIR: '/mnt/fast', TMPDIR: '/var/tmp' }, roomy)).toBe(
      '/mnt/fast',
    );
    expect(runTmpdir({ SIGNFOLD_TEST_TMPDIR: '' }, roomy)).toBeUndefined();
  });
});
