/** What a partition batch reads and counts, apart from the batch itself. */

import { wireId } from '../../core/events/wire-id.js';
import { isObservationValue } from '../../core/observations/observation.js';
import type { LogRecord } from '../../engine/event-log.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { RecordKeys } from '../tables/projection-tables.js';

/**
 * The records a batch may read, keyed by the ids the decoder would read
 * (`wireId`): a member that is no id (`0.5`, `1e400`, a string) makes its
 * event invalid, so it names no record and is never sent as a key. The
 * participants of a request are read for its participant events, and with
 * `everyParticipant` for all its events: a reactor's `change.state` holds
 * every participant of the event's request.
 */
export const keysOf = (records: readonly LogRecord[], everyParticipant = false): RecordKeys => {
  const templates = new Set<number>();
  const signRequests = new Set<number>();
  const participantsOf = new Set<number>();
  for (const record of records) {
    if (record.kind !== 'entry') continue;
    const event = record.event;
    if (typeof event !== 'object' || event === null) continue;
    const members = event as Record<string, unknown>;
    const template = wireId(members.templateId);
    const signRequest = wireId(members.signRequestId);
    if (template !== undefined) templates.add(template);
    if (signRequest !== undefined) {
      signRequests.add(signRequest);
      // An observation record carries the request's whole participant list: it is compared with all of them.
      const whole = everyParticipant || isObservationValue(event);
      if (whole || wireId(members.participantId) !== undefined) {
        participantsOf.add(signRequest);
      }
    }
  }
  return { templates, signRequests, participantsOf };
};

/** The counters of `a` less those of `b`. */
export const minus = (a: ProjectorStats, b: ProjectorStats): ProjectorStats => ({
  applied: a.applied - b.applied,
  noOps: a.noOps - b.noOps,
  conflicts: a.conflicts - b.conflicts,
  invalid: a.invalid - b.invalid,
  alreadyApplied: a.alreadyApplied - b.alreadyApplied,
});
