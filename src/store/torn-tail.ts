/**
 * Sets aside a torn last line: the unterminated, unparsable fragment a crash
 * leaves when it interrupts a write. The fragment is first copied to a
 * sibling file `<log>.torn-<UTC time stamp>` (made durable), and only then is
 * the log truncated to its last complete line, so a crash during this step
 * can duplicate the fragment but never lose it, and it is never parsed as data.
 * A copy that fails (a full disk) is removed again, so no empty or partial
 * sibling is left behind.
 */
import { unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { err, ok, type Result } from 'neverthrow';
import { type FileHandleIO, type FileIO, writeFully } from './file-io.js';
import type { TornFragment } from './file-record-stream.js';
import type { LogError } from './log-error.js';
import { ioError } from './log-error.js';

/** What opening a log found and set aside at its end. */
export interface TornTail {
  /** Line number of the fragment in the log. */
  readonly line: number;
  /** Size of the fragment in bytes. */
  readonly bytes: number;
  /** Path of the sibling file now holding the fragment. */
  readonly setAsideTo: string;
}

/** Attempts at a free sibling name before giving up (two opens in one millisecond collide). */
const MAX_NAME_ATTEMPTS = 100;

/** `2025-11-21T17:59:00.123Z` → `20251121T175900123Z`: sortable and valid in file names everywhere. */
const stampOf = (date: Date): string => date.toISOString().replace(/[-:.]/g, '');

/** Creates a fresh sibling file for the fragment, adding `-2`, `-3`… on a name clash. */
const createSibling = async (
  io: FileIO,
  base: string,
): Promise<{ readonly path: string; readonly handle: FileHandleIO }> => {
  for (let attempt = 1; ; attempt += 1) {
    const path = attempt === 1 ? base : `${base}-${attempt}`;
    try {
      return { path, handle: await io.open(path, 'create-exclusive') };
    } catch (cause) {
      const code = (cause as { readonly code?: unknown }).code;
      if (code !== 'EEXIST' || attempt >= MAX_NAME_ATTEMPTS) throw cause;
    }
  }
};

/** Copies `log[from..to)` to `target` in chunks, so a huge fragment costs constant memory. */
const copyRange = async (
  log: FileHandleIO,
  target: FileHandleIO,
  from: number,
  to: number,
  chunkBytes: number,
): Promise<void> => {
  const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(1, to - from)));
  for (let offset = from; offset < to; ) {
    const read = await log.read(buffer, 0, Math.min(buffer.length, to - offset), offset);
    if (read === 0) break;
    await writeFully(target, buffer.subarray(0, read), offset - from);
    offset += read;
  }
};

/** Moves the fragment `log[fragment.offset..size)` to a sibling file and truncates the log. */
export const setAsideTornTail = async (
  io: FileIO,
  log: FileHandleIO,
  path: string,
  fragment: TornFragment,
  size: number,
  now: Date,
  chunkBytes: number,
): Promise<Result<TornTail, LogError>> => {
  let sibling: { readonly path: string; readonly handle: FileHandleIO } | undefined;
  try {
    sibling = await createSibling(io, `${path}.torn-${stampOf(now)}`);
    await copyRange(log, sibling.handle, fragment.offset, size, chunkBytes);
    await sibling.handle.sync();
    await sibling.handle.close();
    const setAsideTo = sibling.path;
    sibling = undefined;
    await io.syncDirectory(dirname(path));
    await log.truncate(fragment.offset);
    await log.sync();
    return ok({ line: fragment.line, bytes: size - fragment.offset, setAsideTo });
  } catch (cause) {
    if (sibling !== undefined) {
      // The fragment is still in the log, untouched: an empty or partial copy would only
      // mislead, and the next open makes a new one.
      const { handle, path: copy } = sibling;
      await handle.close().catch(() => undefined);
      await (io.remove ?? unlink)(copy).catch(() => undefined);
    }
    return err(ioError(cause, path, 'setting aside the torn tail of'));
  }
};
