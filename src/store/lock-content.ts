/**
 * The lock file's content types, Node-free: the writer lock's public options reach them.
 */
import type { LockHolder } from './log-error.js';
import type { ProcessIdentity } from './process-liveness.js';

/** What a lock file records: who holds it and, where `/proc` exists, which process exactly. */
export interface LockContent extends LockHolder {
  /** Random, per lock taken: tells this holder's lock from any other with the same pid. */
  readonly token: string;
  /** The holder's {@link ProcessIdentity}, absent where it has no `/proc` (or from older signfold). */
  readonly bootId?: string | undefined;
  readonly pidNamespace?: string | undefined;
  readonly startTime?: string | undefined;
}

/** A lock file as read: its content (if signfold's), its exact text, and its heartbeat's age. */
export interface Observed {
  readonly content: LockContent | undefined;
  readonly text: string;
  /** Time since the file was last modified (the holder's heartbeat). */
  readonly ageMs: number;
}
