/**
 * The tracing observer of a projector's outcomes: a `signfold.project` span
 * for each record projected past the checkpoint. The span is made once the
 * outcome is known, with the record's start as its start, so none is left
 * open by a throw. A projector without tracing enabled has none.
 */

import type { StepOutcome } from './projection-step.js';
import type { Halted } from './projector-types.js';
import type { RecordContext } from './record-context.js';
import { eventAttributes, TRACE_ATTRIBUTE } from './trace-attributes.js';
import type { Tracing } from './tracing.js';

/** Tells of each record in a span; see the module comment. */
export class TraceObserver {
  readonly #tracing: Tracing;
  #started = 0;

  constructor(tracing: Tracing) {
    this.#tracing = tracing;
  }

  /** A record past the checkpoint is about to be projected. */
  recordStarting(): void {
    this.#started = Date.now();
  }

  /** The record came to `outcome` (`halted` with why). */
  recorded(record: RecordContext, outcome: StepOutcome, halted: Halted | undefined): void {
    const deliveryId = record.source.deliveryId;
    const span = this.#tracing.startSpan('signfold.project', {
      kind: 'consumer',
      deliveryId,
      startTime: this.#started,
      attributes: {
        ...eventAttributes(record.value),
        [TRACE_ATTRIBUTE.deliveryId]: deliveryId,
        [TRACE_ATTRIBUTE.position]: record.position,
        [TRACE_ATTRIBUTE.outcome]:
          outcome !== 'quarantined'
            ? outcome
            : record.reason?.kind === 'conflict'
              ? 'conflict'
              : 'invalid',
      },
    });
    if (halted !== undefined) span.fail('halted', halted.message);
    span.end();
  }
}
