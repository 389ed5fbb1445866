/**
 * Arbitraries and helpers for the engine tests: raw log streams mixing valid
 * wire events (over the small id space of `arbitraries.ts`, so conflicts are
 * common), values that do not decode, and bad lines; logs built from them;
 * and a comparable summary of a projector.
 */
import fc from 'fast-check';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import type { ProjectionState } from '../../src/core/projections/projection-state.js';
import type { EventLog, LogRecord, ReadOptions } from '../../src/engine/event-log.js';
import type { Projector } from '../../src/engine/projector.js';
import { createMemoryEventLog, type MemoryEventLog } from '../../src/store/memory-event-log.js';
import { smallWorldArb, streamEventArb, wireMutationArb } from './arbitraries.js';

/** One element of a raw stream: a JSON value to append, or a line the log could not parse. */
export type StreamItem =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'bad-line'; readonly text: string };

/** JSON values that are not events: wrong shapes, and valid events broken in one member. */
export const invalidValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, 42, 'participant-signed', [], {}, { type: 'participant-opened' }),
  wireMutationArb.map((m) => m.wire),
);

/** The text of a line that is not JSON. */
export const badLineTextArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('{"type":', 'not json', '{"position":3,'),
  fc.string({ minLength: 1, maxLength: 300 }).map((s) => `{${s}`),
);

/** Options of {@link rawStreamArb}. */
export interface RawStreamOptions {
  readonly maxLength?: number;
  /** Include bad lines (only a {@link recordsLog} can hold them). Default `false`. */
  readonly badLines?: boolean;
}

/**
 * A raw stream over one random world: mostly valid wire events (about one in
 * eight contradicting the world), some undecodable values, optionally bad lines.
 */
export const rawStreamArb = (options: RawStreamOptions = {}): fc.Arbitrary<StreamItem[]> =>
  smallWorldArb.chain((world) => {
    const items: fc.WeightedArbitrary<StreamItem>[] = [
      {
        weight: 10,
        arbitrary: streamEventArb(world).map((e) => ({ kind: 'value', value: encodeEvent(e) })),
      },
      { weight: 1, arbitrary: invalidValueArb.map((value) => ({ kind: 'value', value })) },
    ];
    if (options.badLines === true) {
      items.push({
        weight: 1,
        arbitrary: badLineTextArb.map((text) => ({ kind: 'bad-line', text })),
      });
    }
    // size 'max': fast-check's default size caps arrays at 10 elements whatever maxLength says.
    return fc.array(fc.oneof(...items), { maxLength: options.maxLength ?? 40, size: 'max' });
  });

/** A deterministic receive time for a position. */
export const receivedAtOf = (position: number): Date => new Date(Date.UTC(2025, 0, 1) + position);

/** A memory log holding the values of `items` (which must hold no bad line), one per position. */
export const memoryLogOf = async (items: readonly StreamItem[]): Promise<MemoryEventLog> => {
  const log = createMemoryEventLog();
  const appended = await log.appendBatch(
    items.map((item, i) => {
      if (item.kind !== 'value') throw new Error('a memory log cannot hold a bad line');
      return { event: item.value, receivedAt: receivedAtOf(i + 1) };
    }),
  );
  if (appended.isErr()) throw new Error(appended.error.message);
  return log;
};

/** The records a file log would yield for `items`: position = line = index + 1, bare event lines. */
export const recordsOf = (items: readonly StreamItem[]): LogRecord[] =>
  items.map((item, i): LogRecord => {
    const position = i + 1;
    if (item.kind === 'bad-line') {
      return { kind: 'bad-line', position, line: position, raw: item.text, reason: 'invalid JSON' };
    }
    // Stored as JSON, read back parsed, exactly as the logs do.
    const raw = JSON.stringify(item.value);
    return {
      kind: 'entry',
      position,
      line: position,
      receivedAt: receivedAtOf(position).toISOString(),
      deliveryId: undefined,
      event: JSON.parse(raw) as unknown,
      raw,
    };
  });

/**
 * The records of `items` numbered as the file reader numbers a log the
 * writer wrote (entries 1, 2, 3…) with bad lines among them: a bad line takes
 * the position after the last entry and the next entry takes it too.
 */
export const fileRecordsOf = (items: readonly StreamItem[]): LogRecord[] => {
  let lastEntry = 0;
  return recordsOf(items).map((record, i): LogRecord => {
    const line = i + 1;
    if (record.kind === 'bad-line') {
      return { ...record, position: lastEntry + 1, line, sharesPosition: true };
    }
    lastEntry += 1;
    return { ...record, position: lastEntry, line };
  });
};

/**
 * The checkpoint after replaying `records` up to position `until`: the last
 * position processed, but for bad lines that share theirs with the next entry.
 */
export const checkpointUntil = (records: readonly LogRecord[], until: number): number =>
  records.reduce(
    (checkpoint, r) =>
      r.position <= until && (r.kind === 'entry' || r.sharesPosition !== true)
        ? r.position
        : checkpoint,
    0,
  );

/** Both ways a log numbers its bad lines: positions of their own (PostgreSQL), or shared (files, `sharesPosition`). */
export const RECORD_NUMBERINGS = [
  ['positions of their own', recordsOf],
  ['positions shared with the next entry', fileRecordsOf],
] as const;

/** An {@link EventLog} that serves fixed records in small batches (read-only). */
export const recordsLog = (records: readonly LogRecord[], batchSize = 3): EventLog => ({
  append: () => Promise.reject(new Error('read-only test log')),
  async *read(options?: ReadOptions) {
    const from = options?.fromPosition ?? 1;
    const wanted = records.filter((r) => r.position >= from);
    for (let i = 0; i < wanted.length; i += batchSize) yield wanted.slice(i, i + batchSize);
  },
  close: async () => undefined,
});

/** Every record of a log, in order. */
export const readAll = async (log: EventLog): Promise<LogRecord[]> => {
  const records: LogRecord[] = [];
  for await (const batch of log.read()) records.push(...batch);
  return records;
};

/** The events of `records` that decode, in log order (bad lines and invalid values dropped). */
export const decodableEvents = (records: readonly LogRecord[]): SignEvent[] =>
  records.flatMap((r) => {
    if (r.kind !== 'entry') return [];
    const decoded = decodeEvent(r.event);
    return decoded.isOk() ? [decoded.value] : [];
  });

/** The `receivedAt` of each of {@link decodableEvents}, in the same order (for `fold`). */
export const decodableTimes = (records: readonly LogRecord[]): (string | undefined)[] =>
  records.flatMap((r) => (r.kind === 'entry' && decodeEvent(r.event).isOk() ? [r.receivedAt] : []));

/** Everything observable about a projector that live and bulk application must agree on. */
export interface ProjectorSummary {
  readonly state: ProjectionState;
  readonly checkpoint: number;
  readonly quarantine: ReturnType<Projector['quarantine']>;
  readonly audit: unknown;
}

/** A comparable summary of a projector (audit trails as plain data). */
export const summarize = (projector: Projector): ProjectorSummary => ({
  state: projector.state(),
  checkpoint: projector.checkpoint,
  quarantine: projector.quarantine(),
  audit: projector.auditTrail()?.toData(),
});
