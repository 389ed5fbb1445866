/**
 * A view of a log for the report: it leaves out the entries received at or
 * after the end of the period (`--to`), so the projections are those of the
 * end of the period, and it notes when and under which delivery id each
 * record the projector quarantines was received (the quarantine keeps
 * neither). It reads nothing twice and keeps nothing per record.
 */
import type { LogRecord, ReadOptions } from '../../engine/event-log.js';
import type { ReadableLog } from '../../engine/projector-types.js';
import type { QuarantineEntry } from '../../engine/quarantine.js';
import type { ReportPeriod } from './report-period.js';
import { receivedTime } from './request-times.js';

/** When and as what a quarantined record arrived; both unknown for a bad line or a bare line. */
export interface QuarantineOrigin {
  readonly receivedAt: number | undefined;
  readonly deliveryId: string | undefined;
}

const UNKNOWN: QuarantineOrigin = { receivedAt: undefined, deliveryId: undefined };

/** Reads a log for one report; `origins()[i]` belongs to the projector's `quarantine()[i]`. */
export class PeriodReader {
  readonly #toMs: number | undefined;
  readonly #quarantine: () => readonly QuarantineEntry[];
  readonly #origins: QuarantineOrigin[] = [];

  /** `quarantine` is the projector's, read after each batch to see what it set aside. */
  constructor(period: ReportPeriod, quarantine: () => readonly QuarantineEntry[]) {
    this.#toMs = period.toMs;
    this.#quarantine = quarantine;
  }

  /** The log as the report reads it. */
  view(log: ReadableLog): ReadableLog {
    return { read: (options?: ReadOptions) => this.#read(log, options) };
  }

  /** Origins of the quarantined records, in quarantine order. */
  origins(): readonly QuarantineOrigin[] {
    return this.#origins;
  }

  async *#read(log: ReadableLog, options?: ReadOptions): AsyncIterable<readonly LogRecord[]> {
    for await (const batch of log.read(options)) {
      const kept = this.#toMs === undefined ? batch : batch.filter((r) => this.#before(r));
      try {
        yield kept;
      } finally {
        // The projector has processed the whole batch when it asks for the next (or stops).
        this.#note(kept);
      }
    }
  }

  #before(record: LogRecord): boolean {
    if (record.kind !== 'entry' || this.#toMs === undefined) return true;
    const ms = receivedTime(record.receivedAt);
    return ms === undefined || ms < this.#toMs;
  }

  #note(batch: readonly LogRecord[]): void {
    const entries = this.#quarantine();
    if (entries.length === this.#origins.length) return;
    let cursor = 0;
    for (let i = this.#origins.length; i < entries.length; i += 1) {
      const entry = entries[i];
      let origin = UNKNOWN;
      // Quarantined in batch order: search on from the last match.
      for (let j = cursor; entry !== undefined && j < batch.length; j += 1) {
        const record = batch[j];
        if (record?.position === entry.position && record.line === entry.line) {
          cursor = j + 1;
          if (record.kind === 'entry') {
            origin = {
              receivedAt: receivedTime(record.receivedAt),
              deliveryId: record.deliveryId,
            };
          }
          break;
        }
      }
      this.#origins.push(origin);
    }
  }
}
