/**
 * `signfold/upcasters`: the kit for reading old events as today's. An
 * upcaster turns a stored event of an older shape into the current one as it
 * is read, so the log is never rewritten; the projector, `replay` and the
 * workers take a list of them (`ProjectorOptions.upcasters`).
 *
 * @packageDocumentation
 */

export { defineUpcaster } from './define-upcaster.js';
export type { UpcastFailure, UpcastValue } from './upcast-record.js';
export { upcastRecord } from './upcast-record.js';
export type { UpcasterFingerprint } from './upcaster-fingerprint.js';
export { upcasterFingerprint } from './upcaster-fingerprint.js';
export type {
  Upcaster,
  UpcasterDefinition,
  UpcastFrom,
  UpcastOutput,
} from './upcaster-types.js';
