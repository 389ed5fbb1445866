/**
 * The few file operations the NDJSON log needs, behind an interface so tests
 * can inject faults (ENOSPC on write, EIO on fsync...) and so the log could
 * run on another file system binding. The default, {@link nodeFileIO}, uses
 * `node:fs/promises`.
 */
import { constants, type FileHandle, open, unlink } from 'node:fs/promises';

/** How to open a file. */
export type OpenMode =
  /** Read only; the file must exist. */
  | 'read'
  /** Read and write, creating the file if it is missing; never truncates. */
  | 'read-write'
  /** Write a new file; fails with `EEXIST` if it exists. */
  | 'create-exclusive';

/** An open file. Positions are absolute byte offsets, so no hidden cursor state is involved. */
export interface FileHandleIO {
  /** Current size in bytes. */
  size(): Promise<number>;
  /** Reads up to `length` bytes at file offset `position` into `buffer[offset..]`; resolves to the count read (0 at end of file). */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** Writes `buffer[offset..offset+length]` at file offset `position`; may write fewer bytes (returns the count). */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** Flushes written data to stable storage (fdatasync: the size is flushed too, timestamps need not be). */
  sync(): Promise<void>;
  /**
   * Optional: {@link FileHandleIO.write} and {@link FileHandleIO.sync} of
   * those bytes as one operation (a write through a descriptor opened with
   * `O_DSYNC`, which returns once the bytes and the size are on stable
   * storage, as fdatasync would make them). One round trip to the thread pool
   * instead of two is what a group commit waits for; without it, the log
   * writes and then syncs.
   */
  writeDurably?(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number>;
  /** Cuts the file to `length` bytes. */
  truncate(length: number): Promise<void>;
  /** Releases the handle. */
  close(): Promise<void>;
}

/** Opens files and flushes directories. */
export interface FileIO {
  /** Opens `path`; rejects with a `node:fs`-style error (with `code`) on failure. */
  open(path: string, mode: OpenMode): Promise<FileHandleIO>;
  /** Makes a created or renamed directory entry durable; a no-op where the platform cannot. */
  syncDirectory(path: string): Promise<void>;
  /** Deletes a file the log created and no longer needs (default: `unlink` of `node:fs/promises`). */
  remove?(path: string): Promise<void>;
}

const FLAGS: Readonly<Record<OpenMode, number>> = {
  read: constants.O_RDONLY,
  'read-write': constants.O_RDWR | constants.O_CREAT,
  'create-exclusive': constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
};

/** Errors that only mean "this platform cannot fsync a directory" (e.g. Windows). */
const UNSUPPORTED_DIR_SYNC = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP']);

/** Where the platform has it (not Windows): opens the descriptor of `writeDurably`. */
const { O_DSYNC } = constants as { readonly O_DSYNC?: number };

/**
 * A second descriptor of the file `handle` has open, with `O_DSYNC`, for
 * `writeDurably`; `undefined` where the platform has no `O_DSYNC`, or when
 * `path` no longer names the same file as `handle` (replaced in between).
 */
const openDurable = async (path: string, handle: FileHandle): Promise<FileHandle | undefined> => {
  if (O_DSYNC === undefined) return undefined;
  const durable = await open(path, constants.O_WRONLY | O_DSYNC);
  const [mine, its] = await Promise.all([handle.stat(), durable.stat()]);
  if (mine.dev === its.dev && mine.ino === its.ino) return durable;
  await durable.close();
  return undefined;
};

/** The default {@link FileIO} on `node:fs/promises`. */
export const nodeFileIO: FileIO = {
  async open(path, mode) {
    const handle = await open(path, FLAGS[mode], 0o644);
    const opened: FileHandleIO = {
      size: async () => (await handle.stat()).size,
      read: async (buffer, offset, length, position) =>
        (await handle.read(buffer, offset, length, position)).bytesRead,
      write: async (buffer, offset, length, position) =>
        (await handle.write(buffer, offset, length, position)).bytesWritten,
      sync: () => handle.datasync(),
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
    };
    if (mode !== 'read-write') return opened;
    const durable = await openDurable(path, handle).catch(async (cause: unknown) => {
      await handle.close();
      throw cause;
    });
    if (durable === undefined) return opened;
    return {
      ...opened,
      writeDurably: async (buffer, offset, length, position) =>
        (await durable.write(buffer, offset, length, position)).bytesWritten,
      close: () => durable.close().finally(() => handle.close()),
    };
  },
  async syncDirectory(path) {
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(path, constants.O_RDONLY);
      await handle.sync();
    } catch (cause) {
      const code = (cause as { readonly code?: unknown }).code;
      if (typeof code !== 'string' || !UNSUPPORTED_DIR_SYNC.has(code)) throw cause;
    } finally {
      await handle?.close();
    }
  },
  remove: (path) => unlink(path),
};

/**
 * Writes all of `data` at `position`, looping over short writes; `durably`,
 * also flushes it as {@link FileHandleIO.sync} would, through `writeDurably`
 * when the handle has it, else by a sync after the writes.
 */
export const writeFully = async (
  handle: FileHandleIO,
  data: Uint8Array,
  position: number,
  durably = false,
): Promise<void> => {
  const direct = durably ? handle.writeDurably?.bind(handle) : undefined;
  const write = direct ?? handle.write.bind(handle);
  let done = 0;
  while (done < data.length) {
    const written = await write(data, done, data.length - done, position + done);
    // A zero-byte write would loop forever; the kernel reports real failures as errors.
    if (written <= 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
    done += written;
  }
  if (durably && direct === undefined) await handle.sync();
};
