/**
 * `effects retry` and `effects skip` on a file log: the change is made to the
 * journal under the reactor lock, so it is refused while `signfold react`
 * runs (the runner would write its own state over it).
 */
import { err, ok, type Result } from 'neverthrow';
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

/** Applies `edit` to the parked effects `ids` of the journal of `logPath`. */
export const editJournal = async (
  logPath: string,
  edit: JournalEdit,
  ids: readonly number[],
  now: number = Date.now(),
): Promise<Result<EffectsChange, JournalEditError>> => {
  const lock = await acquireReactorLock(logPath);
  if (lock.isErr()) return err(lock.error);
  try {
    const journal = await readJournal(logPath);
    if (journal.isErr()) return err(journal.error);
    const book = ReactorEffects.restore(journal.value.book);
    const change = edit === 'retry' ? book.retry(ids, now) : book.skip(ids);
    if (change.changed.length === 0) return ok(change);
    const state = {
      book: { entries: book.entries(), watermarks: book.watermarks(), nextId: book.nextId },
      positions: journal.value.positions,
      pruned: journal.value.pruned,
    };
    const writer = await openJournalWriter(logPath, state);
    if (writer.isErr()) return err(writer.error);
    await writer.value.close();
    return ok(change);
  } finally {
    await lock.value.release();
  }
};
