/**
 * Whether a process recorded by pid (in a lock or a temporary file name)
 * still runs, and what tells one process namespace from another: a pid only
 * means something within the pid namespace of one boot of one kernel.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { errnoCode } from './log-error.js';

/**
 * Whether process `pid` exists in this process's pid namespace. Signal 0
 * checks without signalling; EPERM means it exists but belongs to another user.
 */
export const processExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    return errnoCode(cause) === 'EPERM';
  }
};

/** Where and when this process runs, as far as Linux's `/proc` tells. */
export interface ProcessIdentity {
  /** `/proc/sys/kernel/random/boot_id`: new at every boot of the kernel, the same in every container on it. */
  readonly bootId: string;
  /** `/proc/self/ns/pid`, e.g. `pid:[4026531836]`: one per pid namespace (each container has its own). */
  readonly pidNamespace: string;
  /** Field 22 of `/proc/self/stat`: start time in clock ticks after boot, so a reused pid differs. */
  readonly startTime: string;
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * The start time of process `pid` (field 22 of `/proc/PID/stat`, clock ticks
 * after boot), or `undefined` where it cannot be read: no `/proc`, no such
 * process, or a `/proc` mounted with `hidepid`.
 */
export const processStartTime = (pid: number | 'self'): string | undefined => {
  const text = readText(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces and ')': skip past the last.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const value = fields[22 - 3];
  return value !== undefined && /^\d+$/.test(value) ? value : undefined;
};

let own: ProcessIdentity | null | undefined;

/** This process's identity, read once; `undefined` on systems without Linux's `/proc`. */
export const ownIdentity = (): ProcessIdentity | undefined => {
  if (own === undefined) {
    const bootId = readText('/proc/sys/kernel/random/boot_id')?.trim();
    let pidNamespace: string | undefined;
    try {
      pidNamespace = readlinkSync('/proc/self/ns/pid');
    } catch {
      pidNamespace = undefined;
    }
    const startTime = processStartTime('self');
    own =
      bootId && pidNamespace && startTime !== undefined
        ? { bootId, pidNamespace, startTime }
        : null;
  }
  return own ?? undefined;
};

/**
 * Whether the process that recorded `pid` (and `startTime`, when known) in
 * this pid namespace still runs. A pid that exists with another start time
 * was reused: the recorded process is gone. A pid that exists but whose start
 * time cannot be read counts as running: when in doubt, never declare a live
 * holder dead.
 */
export const recordedProcessRuns = (pid: number, startTime: string | undefined): boolean => {
  if (!processExists(pid)) return false;
  if (startTime === undefined) return true;
  const now = processStartTime(pid);
  return now === undefined || now === startTime;
};

/** When this machine booted (ms since the epoch, from `btime` in `/proc/stat`), if known. */
export const bootTimeMs = (): number | undefined => {
  const match = /^btime (\d+)$/m.exec(readText('/proc/stat') ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]) * 1000;
};
