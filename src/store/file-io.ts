/**
 * The few file operations the NDJSON log needs, behind an interface so tests
 * can inject faults (ENOSPC on write, EIO on fsync...) and so the log could
 * run on another file system binding. The default, {@link nodeFileIO}, uses
 * `node:fs/promises`.
 */
import { constants, open, unlink } from 'node:fs/promises';

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

/** The default {@link FileIO} on `node:fs/promises`. */
export const nodeFileIO: FileIO = {
  async open(path, mode) {
    const handle = await open(path, FLAGS[mode], 0o644);
    return {
      size: async () => (await handle.stat()).size,
      read: async (buffer, offset, length, position) =>
        (await handle.read(buffer, offset, length, position)).bytesRead,
      write: async (buffer, offset, length, position) =>
        (await handle.write(buffer, offset, length, position)).bytesWritten,
      sync: () => handle.datasync(),
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
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

/** Writes all of `data` at `position`, looping over short writes. */
export const writeFully = async (
  handle: FileHandleIO,
  data: Uint8Array,
  position: number,
): Promise<void> => {
  let done = 0;
  while (done < data.length) {
    const written = await handle.write(data, done, data.length - done, position + done);
    // A zero-byte write would loop forever; the kernel reports real failures as errors.
    if (written <= 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
    done += written;
  }
};
