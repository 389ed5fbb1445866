/**
 * Waiting for a condition in a test, instead of sleeping for a time that is
 * "enough" on an idle machine and not on a busy one.
 */

/**
 * How long {@link eventually} waits by default: far beyond what any condition
 * of these tests needs even on a loaded machine, so only a real failure
 * reaches it.
 */
export const DEADLINE_MS = 30_000;

/**
 * Polls `check` every `intervalMs` until it holds; rejects naming `what` if it
 * still does not after `deadlineMs`.
 */
export const eventually = async (
  check: () => boolean | Promise<boolean>,
  what: string,
  { deadlineMs = DEADLINE_MS, intervalMs = 20 }: { deadlineMs?: number; intervalMs?: number } = {},
): Promise<void> => {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
