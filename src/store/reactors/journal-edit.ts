/**
 * `effects retry` and `effects skip` on a file log. With no runner, the
 * change is made to the journal under the reactor lock. While `signfold
 * react` holds that lock, the change goes through the runner (see
 * `edit-requests.ts`), which owns the journal: writing around it would let
 * its next line undo the change.
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import type { EffectsChange } from '../../core/reactors/effects-report.js';
import type { EditRequest } from '../../core/reactors/effects-selection.js';
import { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import { applyEditRequest, requestThroughRunner } from './edit-requests.js';
import { openJournalWriter, readJournal } from './reactor-journal.js';
import { acquireReactorLock } from './reactor-lock.js';

/** Why the journal could not be changed; `message` is one line. */
export interface JournalEditError {
  /** `unanswered`: a runner holds the journal but did not answer in time (nothing changed, or see `effects`). */
  readonly kind: 'locked' | 'io' | 'corrupt' | 'unanswered';
  readonly message: string;
}

/** `retry`: parked effects run again with a fresh round of attempts; `skip`: they are dropped. */
export type JournalEdit = 'retry' | 'skip';

/** Options of {@link editJournal}. */
export interface JournalEditOptions {
  /** Say what would change, change nothing (reads the journal without the lock). */
  readonly dryRun?: boolean;
  /** How long a running runner may take to claim the request, and again to answer it (default 10 s). */
  readonly waitMs?: number;
  readonly now?: number;
}

const DEFAULT_WAIT_MS = 10_000;

/** {@link editJournal} once the lock is held (the caller releases it). */
const editLocked = async (
  logPath: string,
  request: EditRequest,
  now: number,
): Promise<Result<EffectsChange, JournalEditError>> =>
  safeTry(async function* () {
    const journal = yield* await readJournal(logPath);
    const book = ReactorEffects.restore(journal.book);
    const change = applyEditRequest(book, request, now);
    if ('error' in change) return err({ kind: 'io' as const, message: change.error });
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

/**
 * Applies `request` to the parked effects of the journal of `logPath`: under
 * the reactor lock, or through the running `signfold react` that holds it.
 */
export const editJournal = async (
  logPath: string,
  request: EditRequest,
  options: JournalEditOptions = {},
): Promise<Result<EffectsChange, JournalEditError>> =>
  safeTry(async function* () {
    const now = options.now ?? Date.now();
    if (options.dryRun === true) {
      const journal = yield* await readJournal(logPath);
      const change = applyEditRequest(ReactorEffects.restore(journal.book), request, now);
      if ('error' in change) return err({ kind: 'io' as const, message: change.error });
      return ok(change);
    }
    const lock = await acquireReactorLock(logPath);
    if (lock.isErr()) {
      if (lock.error.kind !== 'locked') return err(lock.error);
      const answer = await requestThroughRunner(
        logPath,
        request,
        options.waitMs ?? DEFAULT_WAIT_MS,
      );
      if ('kind' in answer) return err(answer);
      if ('error' in answer) return err({ kind: 'io' as const, message: answer.error });
      return ok(answer);
    }
    // A safeTry of its own: a yield* in this try would leave `finally` unrun at an Err.
    try {
      return await editLocked(logPath, request, now);
    } finally {
      await lock.value.release();
    }
  });
