/**
 * Applies stored events to a projector in the order their appends were
 * called, which is position order on a log this process alone writes. The
 * handlers awaiting appends may resume in any order; a projector treats a
 * position at or below its checkpoint as applied, so applying 8 before 7
 * would drop 7 from the live state. Each append takes a ticket before it
 * starts and settles it when it ends (stored or not); a ticket is applied
 * once every earlier one is settled, so nothing waits on a position another
 * process took.
 */

import type { Projector } from '../engine/projector.js';
import type { StoredRecord } from '../engine/projector-types.js';

/** What the projector did with a stored event: its `ApplyResult`, or `halted`. */
export type LiveOutcome = string;

/** One append's place in line. */
export interface Ticket {
  settled: boolean;
  live: StoredRecord | undefined;
  readonly done: (outcome: LiveOutcome | undefined) => void;
  readonly outcome: Promise<LiveOutcome | undefined>;
}

/** The append-order queue in front of one projector. */
export class LiveApplier {
  readonly #projector: Projector;
  readonly #queue: Ticket[] = [];

  /** Applies to `projector`. */
  constructor(projector: Projector) {
    this.#projector = projector;
  }

  /** Takes a place in line; call it right before `log.append`. */
  begin(): Ticket {
    let done: (outcome: LiveOutcome | undefined) => void = () => undefined;
    const outcome = new Promise<LiveOutcome | undefined>((resolve) => {
      done = resolve;
    });
    const ticket: Ticket = { settled: false, live: undefined, done, outcome };
    this.#queue.push(ticket);
    return ticket;
  }

  /** Ends `ticket` (with the event to apply, or none); resolves with what the projector did. */
  settle(ticket: Ticket, live: StoredRecord | undefined): Promise<LiveOutcome | undefined> {
    ticket.settled = true;
    ticket.live = live;
    for (let head = this.#queue[0]; head?.settled === true; head = this.#queue[0]) {
      this.#queue.shift();
      head.done(head.live === undefined ? undefined : this.#apply(head.live));
    }
    return ticket.outcome;
  }

  #apply(live: StoredRecord): LiveOutcome {
    try {
      const result = this.#projector.apply(live);
      return result.isOk() ? result.value : 'halted';
    } catch {
      // Only a position the log never hands out throws; the event is stored either way.
      return 'not-applied';
    }
  }
}
