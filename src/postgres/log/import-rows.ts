/**
 * Log records as the rows `COPY … FROM STDIN` (text format) stores into the
 * events table: tab-separated, `\N` for NULL, and backslash, tab, newline
 * and carriage return escaped. JSON is full of quotes, which this format
 * leaves alone (CSV would double each one).
 */
import type { LogRecord } from '../../engine/event-log.js';
import { routingOf, sqlText } from '../event-routing.js';
import { envelopeEventText } from './envelope-event-text.js';

/** The columns each row gives, in order. */
export const IMPORT_COLUMNS =
  'delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id';

const NULL = '\\N';
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPED: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};

/** A text field as COPY reads it back (NUL and unpaired surrogates as U+FFFD, see `sqlText`). */
export const copyText = (value: string): string => {
  const text = sqlText(value);
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPED[c] ?? c) : text;
};

const optionalText = (value: string | null | undefined): string =>
  value === undefined || value === null ? NULL : copyText(value);
const optionalNumber = (value: number | null): string => (value === null ? NULL : String(value));

/**
 * The row of a record, newline included. `erase` replaces the names of
 * forgotten ids in an event's text (`ErasureLedger.eraseOnAppend`; by
 * default the text is kept).
 */
export const importRow = (
  record: LogRecord,
  erase: (eventJson: string) => string = (text) => text,
): string => {
  if (record.kind === 'bad-line') {
    return `${NULL}\t${NULL}\t${copyText(record.raw)}\t${copyText(record.reason)}\t${NULL}\t${NULL}\t${NULL}\t${NULL}\n`;
  }
  // Stored as written (a bare line, or an envelope's event member), so the
  // worker decodes the very text replay decodes: JSON.stringify would turn
  // 1e400 into null, and an envelope without receivedAt into its whole line.
  const raw = record.raw;
  const body = erase(envelopeEventText(raw) ?? raw);
  const routing = routingOf(record.event);
  return `${optionalText(record.deliveryId)}\t${optionalText(record.receivedAt)}\t${copyText(body)}\t${NULL}\t${optionalText(
    routing.eventType,
  )}\t${optionalNumber(routing.companyId)}\t${optionalNumber(routing.templateId)}\t${optionalNumber(routing.signRequestId)}\n`;
};
