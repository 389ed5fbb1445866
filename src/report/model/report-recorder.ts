/**
 * What the report needs from each event as the projector applies it: when it
 * was received, its type, and what it did. The projector hands exactly that to
 * its audit trail, so the recorder is an audit trail that aggregates instead
 * of keeping one entry per event: memory stays O(sign requests + hours), not
 * O(events), and no status rule is judged again here (outcomes are the
 * engine's). Start a projector with it: `createProjector({ audit: true },
 * { state: initialState(), checkpoint: 0, audit: recorder })`.
 */

import { EVENT_TYPES, type EventType } from '../../core/events/event-members.js';
import type { SignEvent } from '../../core/events/sign-event.js';
import { type AuditEntry, AuditTrail } from '../../engine/audit-trail.js';
import { inPeriod, type ReportPeriod } from './report-period.js';
import { type RequestTimes, receivedTime } from './request-times.js';

const HOUR_MS = 3_600_000;
const TYPE_INDEX = new Map<EventType, number>(EVENT_TYPES.map((type, index) => [type, index]));
/** Slot of the conflict counter in an hour's counters, after one slot per event type. */
export const CONFLICT_SLOT = EVENT_TYPES.length;

/** What a recorder has gathered. */
export interface LogObservations {
  /** Per hour since the epoch (UTC): events received by type (slots in `EVENT_TYPES` order), then conflicts. */
  readonly perHour: ReadonlyMap<number, Int32Array>;
  /** The latest `receivedAt` (epoch ms) of a decoded event, `undefined` when none has one. */
  readonly latest: number | undefined;
  /** The first and last `receivedAt` of decoded events in the period, `undefined` when none. */
  readonly firstInPeriod: number | undefined;
  readonly lastInPeriod: number | undefined;
  /** Sent and final times of each sign request. */
  readonly requests: ReadonlyMap<number, RequestTimes>;
  /** Observation records of the period that repaired a request (closed a difference with the service). */
  readonly repairs: number;
}

type MutableTimes = { -readonly [K in keyof RequestTimes]: RequestTimes[K] } & {
  firstApplied: number | undefined;
  seenApplied: boolean;
  moves: number[] | undefined;
};

/** How far a move took a participant: `participant-sent` 0, `participant-viewed` 1. */
const STAGE: Partial<Record<EventType, number>> = {
  'participant-sent': 0,
  'participant-viewed': 1,
};

/**
 * When a participant entered its current waiting status: triples of
 * participant id, stage and time, moved only forward (a second view does
 * not restart the wait).
 */
const moved = (
  times: MutableTimes,
  participantId: number,
  stage: number,
  ms: number | undefined,
): void => {
  if (ms === undefined) return;
  times.moves ??= [];
  const moves = times.moves;
  for (let i = 0; i < moves.length; i += 3) {
    if (moves[i] !== participantId) continue;
    if (stage > (moves[i + 1] ?? 0)) {
      moves[i + 1] = stage;
      moves[i + 2] = ms;
    }
    return;
  }
  moves.push(participantId, stage, ms);
};

/** An audit trail that only aggregates what the report shows (its histories stay empty). */
export class ReportRecorder extends AuditTrail {
  readonly #perHour = new Map<number, Int32Array>();
  readonly #requests = new Map<number, MutableTimes>();
  readonly #period: ReportPeriod;
  #latest: number | undefined;
  #first: number | undefined;
  #last: number | undefined;
  #repairs = 0;

  /** A recorder counting the activity of `period` (default: the whole log). */
  constructor(period: ReportPeriod = {}) {
    super();
    this.#period = period;
  }

  /** Counts the event (by hour and type, conflicts apart) and updates its request's times. */
  override record(
    event: SignEvent,
    _position: number,
    receivedAt: string | undefined,
    outcome: AuditEntry['outcome'],
  ): void {
    const ms = receivedTime(receivedAt);
    const times =
      'signRequestId' in event
        ? this.#touched(event.signRequestId, ms, outcome === 'applied')
        : undefined;
    if (ms !== undefined) {
      if (this.#latest === undefined || ms > this.#latest) this.#latest = ms;
    }
    // Events before the period are folded (statuses need them) but are not its activity.
    if (ms !== undefined && inPeriod(this.#period, ms)) {
      if (this.#first === undefined || ms < this.#first) this.#first = ms;
      if (this.#last === undefined || ms > this.#last) this.#last = ms;
      const hour = Math.floor(ms / HOUR_MS);
      let counts = this.#perHour.get(hour);
      if (counts === undefined) {
        counts = new Int32Array(CONFLICT_SLOT + 1);
        this.#perHour.set(hour, counts);
      }
      const slot = TYPE_INDEX.get(event.type) ?? 0;
      counts[slot] = (counts[slot] ?? 0) + 1;
      if (outcome !== 'applied' && outcome !== 'no-op') {
        counts[CONFLICT_SLOT] = (counts[CONFLICT_SLOT] ?? 0) + 1;
      }
    }
    if (outcome === 'applied' && times !== undefined) {
      this.#applied(times, event.type, ms);
      const stage = STAGE[event.type];
      if (stage !== undefined && 'participantId' in event) {
        moved(times, event.participantId, stage, ms);
      }
    }
  }

  /** Last activity: any decoded event naming the request, whatever its outcome. */
  #touched(id: number, ms: number | undefined, applied: boolean): MutableTimes | undefined {
    let times = this.#requests.get(id);
    if (times === undefined) {
      // A conflict about a request never applied names nothing the report shows.
      if (!applied) return undefined;
      times = {
        sentAt: undefined,
        finishedAt: undefined,
        outcome: undefined,
        lastActivityAt: undefined,
        firstApplied: undefined,
        seenApplied: false,
        moves: undefined,
      };
      this.#requests.set(id, times);
    }
    if (ms !== undefined && (times.lastActivityAt === undefined || ms > times.lastActivityAt)) {
      times.lastActivityAt = ms;
    }
    return times;
  }

  #applied(times: MutableTimes, type: EventType, ms: number | undefined): void {
    if (!times.seenApplied) {
      times.seenApplied = true;
      times.firstApplied = ms;
    }
    if (type === 'sign-request-sent') {
      if (times.sentAt === undefined) times.sentAt = ms;
    } else if (
      times.outcome === undefined &&
      (type === 'sign-request-completed' || type === 'sign-request-declined')
    ) {
      // Only the first applied one moved the status: a later one applied only renames.
      times.outcome = type === 'sign-request-completed' ? 'completed' : 'declined';
      times.finishedAt = ms;
    }
  }

  /** Counts a repair in the period; keeps no entry (histories stay empty, as for events). */
  override recordObservation(
    _signRequestId: number,
    _position: number,
    receivedAt: string | undefined,
    outcome: AuditEntry['outcome'],
  ): void {
    const ms = receivedTime(receivedAt);
    if (outcome === 'applied' && (ms === undefined || inPeriod(this.#period, ms))) {
      this.#repairs += 1;
    }
  }

  /** What has been gathered so far. */
  observations(): LogObservations {
    const requests = new Map<number, RequestTimes>();
    for (const [id, t] of this.#requests) {
      requests.set(id, {
        sentAt: t.sentAt ?? t.firstApplied,
        finishedAt: t.finishedAt,
        outcome: t.outcome,
        lastActivityAt: t.lastActivityAt,
        moves: t.moves,
      });
    }
    return {
      perHour: this.#perHour,
      latest: this.#latest,
      firstInPeriod: this.#first,
      lastInPeriod: this.#last,
      requests,
      repairs: this.#repairs,
    };
  }
}
