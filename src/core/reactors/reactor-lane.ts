/**
 * One reactor's share of a `TimerBook`: its event-time watermark, its
 * scheduled timers by due time and the keys that can still cancel them. One
 * object per reactor, so the step every applied event takes (raise the
 * watermark, release nothing) is one lookup and one comparison.
 */
import type { BookEntry, Mutable } from './book-entry.js';
import { DueHeap } from './due-heap.js';

/** See the module comment. */
export class ReactorLane {
  /** ms epoch; -∞ before any event or clock reached it. */
  watermark = Number.NEGATIVE_INFINITY;
  /** Whether `watermark` was ever set (only those are saved). */
  marked = false;
  /** key → id of its scheduled (cancellable) entry. */
  readonly keyed = new Map<string, number>();
  /** Scheduled timers by due time: a release touches only what it releases. */
  readonly scheduled = new DueHeap<Mutable<BookEntry>>((entry) => entry.state === 'scheduled');
}
