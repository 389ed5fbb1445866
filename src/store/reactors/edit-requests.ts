/**
 * `effects retry|skip` on a file log while `signfold react` runs: the runner
 * owns the journal, so the command hands it a request on the `reactors`
 * request channel (request-channel.ts: `LOG.reactors.request-ID.json`,
 * claimed, answered) and the runner applies it to the book in memory,
 * journals it, and answers.
 */
import type { EffectsChange } from '../../core/reactors/effects-report.js';
import {
  type EditRequest,
  type EffectsFilter,
  selectParked,
} from '../../core/reactors/effects-selection.js';
import type { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import { claimRequests, sendRequest } from '../request-channel.js';

/** The runner's answer: the change, or why the request could not be read. */
export type EditAnswer = EffectsChange | { readonly error: string };

const TAG = 'signfold-effects-edit';
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** Reads a request's JSON, or says what is wrong with it (a request file is input like any other). */
export const parseEditRequest = (text: string): EditRequest | { readonly error: string } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'the request is not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { error: 'the request is not an object' };
  const v = value as Record<string, unknown>;
  if (v.signfold !== TAG) return { error: 'not an effects edit request' };
  if (v.edit !== 'retry' && v.edit !== 'skip') return { error: 'edit must be retry or skip' };
  if (v.ids !== undefined && !(Array.isArray(v.ids) && v.ids.every(isCount))) {
    return { error: 'ids must be positive integers' };
  }
  const filter = v.filter as Record<string, unknown> | undefined;
  if (
    filter !== undefined &&
    (typeof filter !== 'object' ||
      filter === null ||
      (filter.reactor !== undefined && typeof filter.reactor !== 'string') ||
      (filter.error !== undefined && typeof filter.error !== 'string'))
  ) {
    return { error: 'filter must hold a reactor and an error text' };
  }
  if ((v.ids === undefined) === (filter === undefined)) {
    return { error: 'a request names ids or a filter' };
  }
  return {
    edit: v.edit,
    ...(v.ids === undefined ? {} : { ids: v.ids as number[] }),
    ...(filter === undefined ? {} : { filter: filter as EffectsFilter }),
  };
};

/** A request the runner has claimed: answer it once the change is journaled. */
export interface ClaimedRequest {
  readonly request: EditRequest | { readonly error: string };
  answer(answer: EditAnswer): Promise<void>;
}

/**
 * Claims the requests waiting beside `logPath` (none: an empty list). Never
 * throws for a request another claimant took first or a file that vanished.
 */
export const claimEditRequests = (logPath: string): Promise<ClaimedRequest[]> =>
  claimRequests(logPath, 'reactors', parseEditRequest);

/** Why a request through the runner did not get an answer; `message` is one line. */
export interface EditRequestError {
  readonly kind: 'unanswered' | 'io';
  readonly message: string;
}

/**
 * Hands `request` to the runner of `logPath` and waits for its answer: at
 * most `waitMs` for the runner to claim it (then the request is withdrawn
 * and nothing changed), and as long again for the answer once claimed.
 */
export const requestThroughRunner = async (
  logPath: string,
  request: EditRequest,
  waitMs: number,
): Promise<EditAnswer | EditRequestError> => {
  const sent = await sendRequest(
    logPath,
    'reactors',
    { signfold: TAG, ...request },
    {
      claimMs: waitMs,
    },
  );
  if ('answer' in sent) return sent.answer as EditAnswer;
  switch (sent.kind) {
    case 'io':
      return sent;
    case 'unclaimed':
      return {
        kind: 'unanswered',
        message: `the running 'signfold react' did not take the request within ${waitMs / 1000} s (is it stopped?); nothing was changed`,
      };
    case 'unanswered':
      return {
        kind: 'unanswered',
        message: `the running 'signfold react' took the request but gave no answer within ${(2 * waitMs) / 1000} s; see 'signfold effects ${logPath}' for what changed`,
      };
  }
};

/**
 * Applies `request` to `book` (the same rules whoever holds the journal):
 * the ids named, or the parked effects its filter selects.
 */
export const applyEditRequest = (
  book: ReactorEffects,
  request: EditRequest | { readonly error: string },
  now: number,
): EditAnswer => {
  if ('error' in request) return request;
  const ids = request.ids ?? selectParked(book.entries(), request.filter ?? {});
  return request.edit === 'retry' ? book.retry(ids, now) : book.skip(ids);
};
