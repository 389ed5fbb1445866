/**
 * Log records as the CSV rows `COPY … FROM STDIN (FORMAT csv)` stores into
 * the events table (an unquoted empty field is NULL).
 */
import type { LogRecord } from '../engine/event-log.js';
import { routingOf, sqlText } from './event-routing.js';

/** The columns each row gives, in order. */
export const IMPORT_COLUMNS =
  'delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id';

const csvText = (value: string): string => `"${sqlText(value).replaceAll('"', '""')}"`;
const csvOptional = (value: string | undefined): string =>
  value === undefined ? '' : csvText(value);
const csvNumber = (value: number | null): string => (value === null ? '' : String(value));

/** The CSV row of a record, newline included. */
export const importRow = (record: LogRecord): string => {
  if (record.kind === 'bad-line') return `,,${csvText(record.raw)},${csvText(record.reason)},,,,\n`;
  // A bare line is stored as written; an envelope's event is stored as JSON.stringify writes it.
  const body = record.receivedAt === undefined ? record.raw : JSON.stringify(record.event);
  const routing = routingOf(record.event);
  return `${csvOptional(record.deliveryId)},${csvOptional(record.receivedAt)},${csvText(body)},,${
    routing.eventType === null ? '' : csvText(routing.eventType)
  },${csvNumber(routing.companyId)},${csvNumber(routing.templateId)},${csvNumber(routing.signRequestId)}\n`;
};
