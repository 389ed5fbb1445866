/**
 * The hostile corpus (or a mutation of it) as a webhook sender delivers it, line by line: an
 * envelope line's `event`, as the line writes it, for the body with its `deliveryId` in the
 * delivery header; any other line as it is. And the verdict each delivered line must get: the one
 * `replay` gives it in the file, with the two differences HTTP makes (an envelope refused in the
 * file for its position is, over HTTP, just its event; a delivery id already stored is a
 * duplicate, not stored again, where the fold of the file sees it a second time).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createProjector, type Projector } from '../../src/engine/projector.js';
import { envelopeEventText } from '../../src/postgres/log/envelope-event-text.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';

/** What the fold did with one record. */
export type Verdict = 'applied' | 'no-op' | 'bad-line' | 'invalid-event' | 'conflict';

/** One line of the corpus as delivered over HTTP. */
export interface HostileDelivery {
  /** Its 1-based line number in the corpus. */
  readonly line: number;
  readonly body: Uint8Array;
  readonly deliveryId?: string;
}

/** The lines of `corpus` as bytes (one has invalid UTF-8), the `\r` of a CRLF ending removed. */
export const corpusLineBytes = (corpus: Buffer): Buffer[] => {
  const lines: Buffer[] = [];
  let start = 0;
  for (let end = corpus.indexOf(0x0a); end !== -1; end = corpus.indexOf(0x0a, start)) {
    const line = corpus.subarray(start, end);
    lines.push(line.at(-1) === 0x0d ? line.subarray(0, -1) : line);
    start = end + 1;
  }
  if (start < corpus.length) lines.push(corpus.subarray(start));
  return lines;
};

/** Blank by JSON's own rule only: space, tab, CR and LF. */
export const isJsonBlank = (line: Buffer): boolean => /^[ \t\r\n]*$/.test(line.toString('latin1'));

/** How a sender delivers one line: an envelope's event text with its delivery id, else the line. */
const deliveryOf = (line: Buffer, number: number): HostileDelivery => {
  let text: string;
  let value: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(line);
    value = JSON.parse(text);
  } catch {
    return { line: number, body: line };
  }
  const event = envelopeEventText(text);
  if (event === undefined) return { line: number, body: line };
  const { deliveryId } = value as { deliveryId?: unknown };
  const body = new TextEncoder().encode(event);
  return typeof deliveryId === 'string'
    ? { line: number, body, deliveryId }
    : { line: number, body };
};

/** Every line of `corpus` that is not blank by JSON's rule, as delivered. */
export const hostileDeliveries = (corpus: Buffer): HostileDelivery[] =>
  corpusLineBytes(corpus).flatMap((line, index) =>
    isJsonBlank(line) ? [] : [deliveryOf(line, index + 1)],
  );

/** The verdict of one record, read off the projector that applies it. */
export const verdictOf = (projector: Projector, record: LogRecord): Verdict => {
  const outcome = projector.applyRecord(record)._unsafeUnwrap();
  if (outcome === 'applied' || outcome === 'no-op') return outcome;
  if (outcome !== 'quarantined') throw new Error(`line ${record.line}: unexpected ${outcome}`);
  const kind = projector.quarantine().at(-1)?.reason.kind;
  return kind === 'conflict' || kind === 'invalid-event' ? kind : 'bad-line';
};

/** What delivering a corpus line by line must end in. */
export interface DeliveredReference {
  /** Corpus line → its verdict in the fold of what a receiver stores (redeliveries left out). */
  readonly verdicts: ReadonlyMap<number, Verdict>;
  /** Corpus lines whose delivery id an earlier line already had: answered as duplicates. */
  readonly redeliveries: ReadonlySet<number>;
  /** The fold of what a receiver stores, in delivery order. */
  readonly projector: Projector;
}

/**
 * The reference for delivering `corpus` (written to `dir` to be read by the file reader, as
 * `replay` reads it): the library's projector applying the file's records one by one, each
 * numbered in arrival order, an out-of-order envelope as its event, a redelivery left out.
 */
export const deliveredReference = async (
  corpus: Buffer,
  dir: string,
): Promise<DeliveredReference> => {
  const file = join(dir, `reference-${Date.now()}-${Math.random()}.ndjson`);
  await writeFile(file, corpus);
  const deliveries = new Map(hostileDeliveries(corpus).map((d) => [d.line, d]));
  const projector = createProjector();
  const verdicts = new Map<number, Verdict>();
  const redeliveries = new Set<number>();
  const seen = new Set<string>();
  let arrival = 0;
  for await (const batch of readFileEventLog(file)) {
    for (const record of batch) {
      const { deliveryId } = deliveries.get(record.line) ?? {};
      if (deliveryId !== undefined && seen.has(deliveryId)) {
        redeliveries.add(record.line);
        continue;
      }
      if (deliveryId !== undefined) seen.add(deliveryId);
      arrival += 1;
      const outOfOrder =
        record.kind === 'bad-line' && record.reason.startsWith('envelope position');
      const body = deliveries.get(record.line)?.body ?? new Uint8Array();
      const delivered: LogRecord = outOfOrder
        ? {
            kind: 'entry',
            position: arrival,
            line: record.line,
            receivedAt: undefined,
            deliveryId,
            event: JSON.parse(new TextDecoder().decode(body)) as unknown,
            raw: '',
          }
        : { ...record, position: arrival };
      verdicts.set(record.line, verdictOf(projector, delivered));
    }
  }
  return { verdicts, redeliveries, projector };
};
