/**
 * `effects retry` and `effects skip` on a file log: the change is made to the
 * journal under the reactor lock, so it is refused while `signfold react`
 * runs (the runner would write its own state over it).
 */
import { ok, type Result, safeTry } from 'neverthrow';
import type { EffectsChange } from '../../core/reactors/effects-report.js';
import { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import { openJournalWriter, readJournal } from './reactor-journal.js';
import { acquireReactorLock } from './reactor-lock.js';

/** Why the journal could not be changed; `message` is one line. */
export interface JournalEditError {
  readonly kind: 'locked' | 'io' | 'corrupt';
  readonly message: string;
}

/** `retry`: parked effects run again with a fresh round of attempts; `skip`: they are dropped. */
export type JournalEdit = 'retry' | 'skip';

/** {@link editJournal} once the lock is held (the caller releases it). */
const editLocked = async (
  logPath: string,
  edit: JournalEdit,
  ids: readonly number[],
  now: number,
): Promise<Result<EffectsChange, JournalEditError>> =>
  safeTry(async function* () {
    const journal = yield* await readJournal(logPath);
    const book = ReactorEffects.restore(journal.book);
    const change = edit === 'retry' ? book.retry(ids, now) : book.skip(ids);
    if (change.changed.length === 0) return ok(change);
    const state = {
      book: { entries: book.entries(), watermarks: book.watermarks(), nextId: book.nextId },
      positions: journal.positions,
      pruned: journal.pruned,
      unreacted: journal.unreacted,
    };
    const writer = yield* await openJournalWriter(logPath, state);
    await writer.close();
    return ok(change);
  });

/** Applies `edit` to the parked effects `ids` of the journal of `logPath`. */
export const editJournal = async (
  logPath: string,
  edit: JournalEdit,
  ids: readonly number[],
  now: number = Date.now(),
): Promise<Result<EffectsChange, JournalEditError>> =>
  safeTry(async function* () {
    const lock = yield* await acquireReactorLock(logPath);
    // A safeTry of its own: a yield* in this try would leave `finally` unrun at an Err.
    try {
      return await editLocked(logPath, edit, ids, now);
    } finally {
      await lock.release();
    }
  });
