/**
 * The spans of effect attempts on a file log. An effect entry keeps its
 * position but not the delivery it came from, so the runner remembers the
 * delivery of each position it reacted to in this run (bounded), to put the
 * attempt in that delivery's trace; an effect planned before a restart is
 * traced with its position only.
 */
import type { Change } from '../../core/reactors/reactor-types.js';
import { startAttemptSpan } from '../../engine/attempt-span.js';
import { eventAttributes } from '../../engine/trace-attributes.js';
import type { TraceAttributes, TraceSpan, Tracing } from '../../engine/tracing.js';

/** Positions remembered at most: far more than the effects one run holds ready at once. */
const REMEMBERED = 10_000;

/** What an effect's span needs to know of the position it came from. */
interface Origin {
  readonly deliveryId: string | undefined;
  readonly attributes: TraceAttributes;
}

/** The attempt spans of one runner. */
export class EffectTrace {
  readonly #tracing: Tracing;
  readonly #origins = new Map<number, Origin>();

  /** Traces to `tracing` (enabled: the runner makes none otherwise). */
  constructor(tracing: Tracing) {
    this.#tracing = tracing;
  }

  /** Notes where an applied event came from, for the attempts of its effects. */
  reactedTo(change: Change): void {
    if (this.#origins.has(change.position)) return;
    if (this.#origins.size >= REMEMBERED) {
      const oldest = this.#origins.keys().next();
      if (oldest.done !== true) this.#origins.delete(oldest.value);
    }
    this.#origins.set(change.position, {
      deliveryId: change.deliveryId,
      attributes: eventAttributes(change.event),
    });
  }

  /** Starts the span of attempt `attempt` of effect `id` of `reactor`, planned at `position`. */
  attempt(reactor: string, id: number | string, position: number, attempt: number): TraceSpan {
    const origin = this.#origins.get(position);
    return startAttemptSpan(this.#tracing, { reactor, id, position, attempt, ...origin });
  }
}
