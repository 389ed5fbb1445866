/** Whether a process recorded by pid (in a lock or a temporary file name) still runs on this host. */
import { errnoCode } from './log-error.js';

/**
 * Whether process `pid` exists on this host. Signal 0 checks without
 * signalling; EPERM means it exists but belongs to another user.
 */
export const processExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    return errnoCode(cause) === 'EPERM';
  }
};
