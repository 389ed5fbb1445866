/** What applying one record returns: the shared ok results, and the halt error. */
import { ok, type Result } from 'neverthrow';
import type { ApplyResult, Halted } from './projector-types.js';
import type { QuarantineReason } from './quarantine.js';

// Results are immutable: share one per outcome instead of allocating per event.
export const APPLIED: Result<ApplyResult, Halted> = ok('applied');
export const NO_OP: Result<ApplyResult, Halted> = ok('no-op');
export const ALREADY_APPLIED: Result<ApplyResult, Halted> = ok('already-applied');
export const QUARANTINED: Result<ApplyResult, Halted> = ok('quarantined');
export const INCOMPLETE: Result<ApplyResult, Halted> = ok('incomplete');

/** Why a `halt` projector stopped before the record at `position` (line `line` of a file). */
export const haltedAt = (
  position: number,
  line: number | undefined,
  reason: QuarantineReason,
): Halted => ({
  kind: 'halted',
  position,
  line,
  reason,
  message: `halted at position ${position}${line === undefined ? '' : ` (line ${line})`}: ${reason.message}`,
});
