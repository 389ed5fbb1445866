/**
 * The line a stored row of the events table becomes in the log file that
 * `signfold pg events` writes, chosen so that `replay` of that file gives the
 * row the verdict the database's workers give it:
 * - an event with a time or a delivery id: the envelope the file log itself
 *   writes (`position`, `receivedAt`, `deliveryId`, `event`, in that order),
 *   so a log imported with `pg import` comes back byte for byte;
 * - an event with neither, stored from a bare line: the bare event, at the
 *   line whose number is its position (the writer pads with blank lines), so
 *   it reads at the same position and with the same text; an event that a
 *   bare line would not carry (not an object, or shaped like an envelope):
 *   an envelope without `receivedAt`;
 * - a bad line: its stored text (the first 200 characters of the line), a bad
 *   line again, whose reason replay derives anew from that text;
 * - an event an operator skipped (`pg skip`), and a stored bad line whose text
 *   would now read as an event: `# ` and the reason before the text, which no
 *   reader takes for an event, so replay never applies what the workers did not.
 */
import { previewRaw } from '../../engine/quarantine.js';
import type { EventRow } from '../../postgres/read/read-stored-events.js';
import { parseLogLine } from '../../store/parse-log-line.js';

const LINE_BREAKS = /[\r\n]/g;

/** `text` on one line: a line break in stored text can only be JSON's whitespace or in a bad line. */
const oneLine = (text: string): string => text.replace(LINE_BREAKS, ' ');

/** The body as JSON, or `undefined` when it is not. */
const parsed = (body: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(body) as unknown };
  } catch {
    return undefined;
  }
};

const isBareObject = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const object = value as { readonly position?: unknown; readonly event?: unknown };
  return !(typeof object.position === 'number' && object.event !== undefined);
};

/** A line no reader takes for an event, with why, for what must stay unapplied. */
const marked = (why: string, text: string): string => `# ${oneLine(why)}: ${text}`;

/** Whether `text`, read alone at line `position`, would be an event rather than a bad line. */
const readsAsEntry = (text: string, position: number): boolean =>
  parseLogLine(text, { line: position, lastPosition: 0 })?.kind === 'entry';

/** The log line (without its newline) of `row`. */
export const storedLogLine = (row: EventRow): string => {
  const position = Number(row.position);
  const body = oneLine(row.body);
  if (row.skipped !== null) return marked(`skipped with signfold pg skip: ${row.skipped}`, body);
  if (row.bad_line !== null) {
    return readsAsEntry(body, position) ? marked(row.bad_line, body) : body;
  }
  const json = parsed(body);
  if (json === undefined) return readsAsEntry(body, position) ? marked('not JSON', body) : body;
  if (row.received_ms === null && row.delivery_id === null && isBareObject(json.value)) return body;
  const receivedAt =
    row.received_ms === null
      ? ''
      : `,"receivedAt":"${new Date(Number(row.received_ms)).toISOString()}"`;
  const deliveryId =
    row.delivery_id === null ? '' : `,"deliveryId":${JSON.stringify(row.delivery_id)}`;
  return `{"position":${position}${receivedAt}${deliveryId},"event":${body}}`;
};

/** The quarantine's `raw` for `row`: the start of its line, as `replay` of that line keeps it. */
export const storedRawPreview = (row: EventRow): string => previewRaw(storedLogLine(row));
