import { type DecodeError, formatDecodeError } from '../core/decode-error.js';
import type { Conflict } from '../core/projections/conflict.js';

/** Why a log record was not applied. */
export type QuarantineReason =
  | { readonly kind: 'bad-line'; readonly message: string }
  | { readonly kind: 'invalid-event'; readonly error: DecodeError; readonly message: string }
  | { readonly kind: 'conflict'; readonly conflict: Conflict; readonly message: string };

/** A record set aside by the projector, with enough context to find and fix it. */
export interface QuarantineEntry {
  readonly position: number;
  /** Line in the log file, when read from one. */
  readonly line: number | undefined;
  /** The start of the stored text (at most 200 characters). */
  readonly raw: string;
  readonly reason: QuarantineReason;
}

/** How much of a quarantined record's text is kept. */
export const RAW_PREVIEW_LENGTH = 200;

/** Cuts stored text down to a preview, never splitting a surrogate pair (bad lines and quarantine alike). */
export const previewRaw = (raw: string): string => {
  if (raw.length <= RAW_PREVIEW_LENGTH) return raw;
  const code = raw.charCodeAt(RAW_PREVIEW_LENGTH - 1);
  // A high surrogate at the cut would leave a lone half of a pair.
  const end = code >= 0xd800 && code <= 0xdbff ? RAW_PREVIEW_LENGTH - 1 : RAW_PREVIEW_LENGTH;
  return `${raw.slice(0, end)}…`;
};

/** Builds the reason for a decoding failure, naming the member. */
export const invalidEvent = (error: DecodeError): QuarantineReason => ({
  kind: 'invalid-event',
  error,
  message: formatDecodeError(error),
});

/** Builds the reason for a conflict. */
export const conflicting = (conflict: Conflict): QuarantineReason => ({
  kind: 'conflict',
  conflict,
  message: `${conflict.kind}: ${conflict.message}`,
});

/** The text to keep for a value received without its text; never throws, whatever the value. */
export const rawTextOf = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return `(unprintable ${typeof value})`;
    }
  }
};
