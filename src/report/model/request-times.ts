/** When a sign request was sent and finished, and how `receivedAt` strings become times. */

/** The times of one sign request, in epoch milliseconds. */
export interface RequestTimes {
  /** Its first applied `sign-request-sent`, else its first applied event; `undefined` without `receivedAt`. */
  readonly sentAt: number | undefined;
  /** Its first applied `sign-request-completed` or `sign-request-declined`. */
  readonly finishedAt: number | undefined;
  readonly outcome: 'completed' | 'declined' | undefined;
  /** The latest `receivedAt` of any decoded event naming it (applied, no-op or conflict). */
  readonly lastActivityAt?: number | undefined;
  /**
   * Triples of participant id, stage (0 sent, 1 viewed) and the `receivedAt`
   * of the applied event that moved it there; read with {@link awaitedSince}.
   */
  readonly moves?: readonly number[] | undefined;
}

/**
 * Since when a participant waits: the `receivedAt` of the applied event that
 * moved it to where it waits (its first `participant-viewed`, else its
 * `participant-sent`); `undefined` when no such event carried a time.
 */
export const awaitedSince = (
  times: RequestTimes | undefined,
  participantId: number,
): number | undefined => {
  const moves = times?.moves;
  if (moves === undefined) return undefined;
  for (let i = 0; i < moves.length; i += 3) if (moves[i] === participantId) return moves[i + 2];
  return undefined;
};

const HOUR_MS = 3_600_000;
// The hour of the previous call: consecutive lines of a log mostly share it.
let cachedHour = '';
let cachedHourMs = 0;

/** The value of 2 decimal digits at `at`, or -1. */
const digits2 = (text: string, at: number): number => {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
};

/**
 * The canonical `YYYY-MM-DDTHH:MM:SS.sssZ` (what the file log writes) without
 * `Date.parse`, which costs about 0.4 µs a call: a million-line log pays that
 * twice over. Returns `undefined` for anything else.
 */
const parseCanonical = (text: string): number | undefined => {
  if (text.length !== 24 || text.charCodeAt(23) !== 90 || text.charCodeAt(19) !== 46) return;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return;
  const minutes = digits2(text, 14);
  const seconds = digits2(text, 17);
  const hundreds = text.charCodeAt(20) - 48;
  const millis = digits2(text, 21);
  if (minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) return;
  if (hundreds < 0 || hundreds > 9 || millis < 0) return;
  if (!text.startsWith(cachedHour) || cachedHour === '') {
    // The hour prefix must be canonical too (checked once per hour: a cached one was):
    // Date.parse's lenient fallback reads other strings differently (it drops the
    // milliseconds of '197(-01-01T00:00:00.001Z').
    if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84)
      return;
    if (digits2(text, 0) < 0 || digits2(text, 2) < 0 || digits2(text, 5) < 0) return;
    if (digits2(text, 8) < 0 || digits2(text, 11) < 0) return;
    const hourMs = Date.parse(`${text.slice(0, 13)}:00:00.000Z`);
    if (!Number.isFinite(hourMs) || hourMs % HOUR_MS !== 0) return;
    cachedHour = text.slice(0, 13);
    cachedHourMs = hourMs;
  }
  return cachedHourMs + minutes * 60_000 + seconds * 1000 + hundreds * 100 + millis;
};

/** `receivedAt` as epoch ms, or `undefined` for none or an unparsable one (the log is untrusted). */
export const receivedTime = (receivedAt: string | undefined): number | undefined => {
  if (receivedAt === undefined) return undefined;
  const fast = parseCanonical(receivedAt);
  if (fast !== undefined) return fast;
  const ms = Date.parse(receivedAt);
  return Number.isFinite(ms) ? ms : undefined;
};
