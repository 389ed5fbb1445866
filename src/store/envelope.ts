/**
 * The envelope lines the file and memory logs store:
 * `{"position":N,"receivedAt":"ISO","deliveryId":"…","event":…}` (no
 * `deliveryId` member when none was given).
 */
import type { EncodedRecord } from '../engine/append-encoding.js';

/** The stored line for `item` at `position`, without the newline. */
export const envelopeLine = (position: number, item: EncodedRecord): string => {
  const id =
    item.deliveryId === undefined ? '' : `,"deliveryId":${JSON.stringify(item.deliveryId)}`;
  return `{"position":${position},"receivedAt":"${item.receivedAt}"${id},"event":${item.eventJson}}`;
};
