/**
 * Forgetting a person in one stored line of a file log, byte for byte: a
 * line is read as the log reads it (envelope or bare event, the byte order
 * mark of line 1, the CR of a CRLF end) and only the strings that hold the
 * person's names change. Lines that cannot concern the person (none of the
 * ids' digits, none of the names' bytes) are never parsed.
 */
import { decodeEvent } from '../../core/events/decode-event.js';
import { decodeObservation } from '../../core/observations/decode-observation.js';
import { isObservationValue } from '../../core/observations/observation.js';
import { eraseInText, type NamesToErase, storedForms } from '../../core/privacy/erase-in-text.js';
import type { ErasureSubject } from '../../core/privacy/erasure-subject.js';
import { participantsNamed } from '../../core/privacy/person-names.js';
import { namesHeldBy, recordErasures } from '../../core/privacy/record-erasures.js';
import { type JsonPath, rewriteJsonStrings } from '../../core/privacy/rewrite-json-strings.js';

/** What to look for in lines, made once per forget. */
export interface LinePlan {
  readonly subject: ErasureSubject;
  readonly names: NamesToErase;
  /** A line holds one of these (UTF-8) or it needs no work. */
  readonly needles: readonly Buffer[];
  /** The names' stored forms, for lines that are not UTF-8 and so can only be searched as bytes. */
  readonly forms: readonly Buffer[];
  /** The ids' needles alone: what a line must hold to hold a name by id. */
  readonly idNeedles: readonly Buffer[];
}

/**
 * The digits every JSON spelling of `id` contains: `10` may be written `1e1`,
 * so trailing zeros are dropped, and the sign too.
 */
const idNeedle = (id: number): string => String(Math.abs(id)).replace(/0+$/, '') || '0';

/** The plan of a forget of `subject` erasing `names`. */
export const linePlan = (subject: ErasureSubject, names: NamesToErase): LinePlan => {
  const idNeedles = [...new Set([...subject.participantIds, ...subject.userIds].map(idNeedle))].map(
    (text) => Buffer.from(text),
  );
  const forms = storedForms([...names.typed, ...names.found]).map((form) => Buffer.from(form));
  return { subject, names, idNeedles, forms, needles: [...idNeedles, ...forms] };
};

/** How a line changed: a record's names, or text in a line that is no valid record. */
export type LineChange = 'record' | 'bad line';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BOM = '\uFEFF';
const BLANK = /^[ \t\r]*$/;

const holdsAny = (line: Buffer, needles: readonly Buffer[]): boolean =>
  needles.some((needle) => line.includes(needle));

/** The line's text as the log reads it, and what it wraps around it (BOM, CR). */
interface LineText {
  readonly text: string;
  readonly before: string;
  readonly after: string;
}

const textOf = (line: Buffer, lineNumber: number): LineText | undefined => {
  let text: string;
  try {
    text = utf8.decode(line);
  } catch {
    return undefined;
  }
  const before = lineNumber === 1 && text.startsWith(BOM) ? BOM : '';
  const after = text.endsWith('\r') ? '\r' : '';
  return { text: text.slice(before.length, text.length - after.length), before, after };
};

/** The record a parsed line holds (an envelope's event, or the bare value), and where. */
const recordOf = (value: unknown): { readonly record: unknown; readonly prefix: JsonPath } => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const members = value as Record<string, unknown>;
    if (typeof members.position === 'number' && Object.hasOwn(members, 'event')) {
      return { record: members.event, prefix: ['event'] };
    }
  }
  return { record: value, prefix: [] };
};

const isValidRecord = (record: unknown): boolean =>
  isObservationValue(record) ? decodeObservation(record).isOk() : decodeEvent(record).isOk();

const parse = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

/** Every occurrence of each of `forms` in `line` replaced by `pseudonym`, as bytes. */
const eraseBytes = (
  line: Buffer,
  forms: readonly Buffer[],
  pseudonym: string,
): { bytes: Buffer; count: number } => {
  let bytes = line;
  let count = 0;
  const replacement = Buffer.from(pseudonym);
  for (const form of forms) {
    let index = bytes.indexOf(form);
    if (index < 0) continue;
    const parts: Buffer[] = [];
    let from = 0;
    while (index >= 0) {
      parts.push(bytes.subarray(from, index), replacement);
      from = index + form.length;
      count += 1;
      index = bytes.indexOf(form, from);
    }
    parts.push(bytes.subarray(from));
    bytes = Buffer.concat(parts);
  }
  return { bytes, count };
};

/**
 * `line` (its bytes, without the line feed) with the person's names erased,
 * and how it changed (`undefined`: not at all, and the same bytes are
 * returned). A valid record changes only in the strings the erasure rule
 * names; a line that is not one (not UTF-8, not JSON, not an object, an
 * invalid event) also loses every stored form of the names in its text.
 */
export const forgetLine = (
  line: Buffer,
  lineNumber: number,
  plan: LinePlan,
): { readonly bytes: Buffer; readonly change: LineChange | undefined } => {
  const unchanged = { bytes: line, change: undefined };
  if (!holdsAny(line, plan.needles)) return unchanged;
  const { pseudonym } = plan.subject;
  const read = textOf(line, lineNumber);
  if (read === undefined) {
    const erased = eraseBytes(line, plan.forms, pseudonym);
    return erased.count === 0 ? unchanged : { bytes: erased.bytes, change: 'bad line' };
  }
  const { text, before, after } = read;
  if (BLANK.test(text)) return unchanged;
  const parsed = parse(text);
  let next = text;
  let change: LineChange | undefined;
  let valid = false;
  if (parsed.ok) {
    const { record, prefix } = recordOf(parsed.value);
    const rewritten = rewriteJsonStrings(
      text,
      recordErasures(record, plan.subject, plan.names, prefix),
    );
    if (rewritten.replaced > 0) {
      next = rewritten.text;
      change = 'record';
    }
    valid = isValidRecord(record);
  }
  if (!valid) {
    const erased = eraseInText(next, plan.names, pseudonym);
    if (erased.count > 0) {
      next = erased.text;
      change = 'bad line';
    }
  }
  return change === undefined
    ? unchanged
    : { bytes: Buffer.from(`${before}${next}${after}`), change };
};

/**
 * The names `line` holds for the subject's ids (see `namesHeldBy`): what
 * the first pass of a forget gathers, to erase them where they were copied.
 */
export const namesInLine = (line: Buffer, lineNumber: number, plan: LinePlan): string[] => {
  if (plan.idNeedles.length === 0 || !holdsAny(line, plan.idNeedles)) return [];
  const read = textOf(line, lineNumber);
  if (read === undefined) return [];
  const parsed = parse(read.text);
  if (!parsed.ok) return [];
  return namesHeldBy(recordOf(parsed.value).record, plan.subject);
};

/**
 * The participant ids outside the subject whose name in `line` is one of
 * `names` (see `participantsNamed`): the same person, maybe, under another
 * id, which a forget by id does not touch. Only lines holding one of
 * `forms` (the names' stored forms) are parsed.
 */
export const participantsInLine = (
  line: Buffer,
  lineNumber: number,
  plan: LinePlan,
  names: readonly string[],
  forms: readonly Buffer[],
): number[] => {
  if (!holdsAny(line, forms)) return [];
  const read = textOf(line, lineNumber);
  if (read === undefined) return [];
  const parsed = parse(read.text);
  if (!parsed.ok) return [];
  const { subject } = plan;
  return participantsNamed(
    recordOf(parsed.value).record,
    names,
    subject.participantIds,
    subject.companyId,
  );
};
