/**
 * Replacing a file whole, so a reader or a crash sees the old content or the
 * new, never half: the new content goes to a temporary file beside the
 * target (the same directory, so the rename cannot cross file systems),
 * which is fsynced, renamed over the target, and then the directory is
 * fsynced so the rename itself survives a power loss.
 *
 * A temporary file is named `<target>.<pid>.<8 hex>.tmp`: two writers of the
 * same target, in one process or several, never share one. A failure before
 * the rename removes it; one a killed process left is removed by the next
 * replacement of the same target (see {@link removeStaleTemporaries}).
 */
import { randomBytes } from 'node:crypto';
import { constants, type FileHandle, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeFileIO } from './file-io.js';
import { processExists } from './process-liveness.js';

/** How the temporary file is made. */
export interface ReplaceOptions {
  /** Permission bits of the new file, before the umask (default `0o666`, as `writeFile`'s). */
  readonly mode?: number;
}

/** A replacement under way: written, then committed or abandoned. */
export interface Replacement {
  /** The temporary file being written (it can be read back once {@link Replacement.commit} flushed it). */
  readonly temporary: string;
  /** Appends `bytes` (buffered into large writes). */
  write(bytes: Uint8Array): Promise<void>;
  /** Flushes and fsyncs the temporary file and closes it, without renaming it yet. */
  finish(): Promise<void>;
  /** Renames the finished temporary file over the target and fsyncs the directory. */
  commit(): Promise<void>;
  /** Closes and removes the temporary file; the target is left as it was. Never rejects. */
  abandon(): Promise<void>;
}

/** Writes gather up to this many bytes: few system calls for a file written line by line. */
const WRITE_BYTES = 1 << 20;
/** A temporary file older than this is stale whatever its pid says (it may be another host's). */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;
const TEMPORARY = /^(\d+)\.[0-9a-f]{8}\.tmp$/;

/** Temporary files this process is writing now, which a cleanup must not touch. */
const inFlight = new Set<string>();

/** Whether `name` (a file name) is a temporary file of a replacement of the file named `of`. */
export const isTemporaryOf = (name: string, of: string): boolean =>
  name.startsWith(`${of}.`) && TEMPORARY.test(name.slice(of.length + 1));

/** Whether `name` (a file name) is the temporary file of some replacement. */
export const isReplacementTemporary = (name: string): boolean =>
  /\.\d+\.[0-9a-f]{8}\.tmp$/.test(name);

/**
 * Removes the temporary files that earlier replacements of `path` left when
 * their process was killed: those whose process no longer runs on this
 * host, this process's own that no write holds, and any older than an hour.
 * Best effort: a file that vanished or cannot be read is passed over.
 */
const removeStaleTemporaries = async (path: string): Promise<void> => {
  const directory = dirname(path);
  const target = basename(path);
  const names = await readdir(directory).catch(() => [] as string[]);
  for (const name of names) {
    if (!isTemporaryOf(name, target)) continue;
    const file = join(directory, name);
    if (inFlight.has(file)) continue;
    const pid = Number(TEMPORARY.exec(name.slice(target.length + 1))?.[1]);
    const info = await stat(file).catch(() => undefined);
    if (info === undefined) continue;
    const mine = pid === process.pid;
    if (mine || !processExists(pid) || Date.now() - info.mtimeMs > STALE_TEMPORARY_MS) {
      await unlink(file).catch(() => undefined);
    }
  }
};

/** Buffers writes to `handle` into large ones. */
class BufferedWriter {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  constructor(readonly handle: FileHandle) {}

  async write(bytes: Uint8Array): Promise<void> {
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= WRITE_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    // One piece is written as it is: a whole content is not copied once more.
    const whole =
      this.#pending.length === 1
        ? (this.#pending[0] as Uint8Array)
        : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    for (let done = 0; done < whole.length; ) {
      done += (await this.handle.write(whole, done, whole.length - done)).bytesWritten;
    }
  }
}

/**
 * Starts replacing the file at `path`: creates a fresh temporary file beside
 * it (after removing those crashed replacements left). Write it, then
 * `finish` and `commit`, or `abandon` it. For content that is at hand whole,
 * {@link replaceFile} does all of it.
 */
export const startReplacement = async (
  path: string,
  options: ReplaceOptions = {},
): Promise<Replacement> => {
  // Spelled as the cleanup spells what it lists (`join` normalises), so that `inFlight` keeps a
  // write of this process safe from a replacement of the same file given as `./log` or `dir//log`.
  const temporary = join(
    dirname(path),
    `${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  inFlight.add(temporary);
  await removeStaleTemporaries(path);
  let handle: FileHandle | undefined;
  try {
    handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      options.mode ?? 0o666,
    );
  } catch (cause) {
    inFlight.delete(temporary);
    throw cause;
  }
  const writer = new BufferedWriter(handle);
  let isOpen = true;
  const close = async (): Promise<void> => {
    if (!isOpen) return;
    isOpen = false;
    await writer.handle.close();
  };
  const abandon = async (): Promise<void> => {
    await close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    inFlight.delete(temporary);
  };
  return {
    temporary,
    write: (bytes) => writer.write(bytes),
    finish: async () => {
      try {
        await writer.flush();
        await writer.handle.sync();
      } finally {
        await close();
      }
    },
    commit: async () => {
      try {
        await rename(temporary, path);
      } catch (cause) {
        await abandon();
        throw cause;
      }
      inFlight.delete(temporary);
      await nodeFileIO.syncDirectory(dirname(path));
    },
    abandon,
  };
};

/**
 * Replaces the file at `path` with `content` (see the module comment): a
 * string is written as UTF-8; a function is given `write` and writes the
 * content piece by piece. If anything fails before the rename, the target
 * is left as it was and the temporary file is removed; the error is thrown.
 */
export const replaceFile = async (
  path: string,
  content: string | Uint8Array | ((write: (bytes: Uint8Array) => Promise<void>) => Promise<void>),
  options: ReplaceOptions = {},
): Promise<void> => {
  const replacement = await startReplacement(path, options);
  try {
    if (typeof content === 'function') await content(replacement.write);
    else await replacement.write(typeof content === 'string' ? Buffer.from(content) : content);
    await replacement.finish();
  } catch (cause) {
    await replacement.abandon();
    throw cause;
  }
  await replacement.commit();
};
