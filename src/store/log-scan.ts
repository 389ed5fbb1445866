/**
 * What opening a file log learns from the file already there: the last
 * entry's position, the delivery ids stored, a torn last line, and whether a
 * complete last line lacks its newline.
 */
import type { AppendState } from './append-planner.js';
import type { FileHandleIO } from './file-io.js';
import { type StreamSettings, streamRecords, type TornFragment } from './file-record-stream.js';

/** What scanning the existing file found. */
export interface Scan {
  readonly state: AppendState;
  readonly torn: TornFragment | undefined;
}

/** Replays the whole file once to rebuild the last position and the delivery ids. */
export const scan = async (
  handle: FileHandleIO,
  settings: StreamSettings,
  size: number,
): Promise<Scan> => {
  const state: AppendState = { lastPosition: 0, deliveryIds: new Map() };
  let torn: TornFragment | undefined;
  const onTorn = (fragment: TornFragment): void => {
    torn = fragment;
  };
  // Only positions and delivery ids are needed: no line text.
  const scanSettings = { ...settings, end: size, onTorn, lazyRaw: true };
  for await (const batch of streamRecords(handle, scanSettings)) {
    for (const record of batch) {
      // Bad lines hold no position: the next append takes the one after the last entry.
      if (record.kind !== 'entry') continue;
      state.lastPosition = record.position;
      if (record.deliveryId !== undefined) {
        // The first occurrence wins, as it did when the log wrote it.
        if (!state.deliveryIds.has(record.deliveryId)) {
          state.deliveryIds.set(record.deliveryId, record.position);
        }
      }
    }
  }
  return { state, torn };
};

/** Whether the file's last byte is something other than a newline (a complete but unterminated line). */
export const endsWithoutNewline = async (handle: FileHandleIO, size: number): Promise<boolean> => {
  if (size === 0) return false;
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, size - 1);
  return byte[0] !== 0x0a;
};
