/**
 * `effects retry|skip` on a file log while `signfold react` runs: the runner
 * owns the journal, so the command hands it a request file and the runner
 * applies it to the book in memory, journals it, and answers. Files, not a
 * socket: the log's directory is the one thing both already share, a request
 * survives neither side's crash in a half state (each file is written whole
 * and renamed into place), and a stopped runner is seen as a request nobody
 * claims, which the command withdraws after a bounded wait.
 *
 * The protocol, by file name beside the log (ID is random):
 * - `LOG.reactors.request-ID.json`: written by the command (temporary file,
 *   then rename).
 * - `LOG.reactors.claimed-ID.json`: the runner claims a request by renaming
 *   it; the command can no longer withdraw it and waits for the answer.
 * - `LOG.reactors.answer-ID.json`: the runner's answer, written once the
 *   change is in the journal (temporary file, then rename); the command reads
 *   and removes it.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { EffectsChange } from '../../core/reactors/effects-report.js';
import {
  type EditRequest,
  type EffectsFilter,
  selectParked,
} from '../../core/reactors/effects-selection.js';
import type { ReactorEffects } from '../../core/reactors/reactor-effects.js';

/** The runner's answer: the change, or why the request could not be read. */
export type EditAnswer = EffectsChange | { readonly error: string };

const TAG = 'signfold-effects-edit';
const ID = /^[0-9a-f]{16}$/;

const fileOf = (logPath: string, kind: 'request' | 'claimed' | 'answer', id: string): string =>
  `${logPath}.reactors.${kind}-${id}.json`;

/** Writes `text` whole under `path`: to a temporary name, then renamed. */
const writeWhole = async (path: string, text: string): Promise<void> => {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, text, { flag: 'wx' });
  await rename(temporary, path);
};

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
export const claimEditRequests = async (logPath: string): Promise<ClaimedRequest[]> => {
  const prefix = `${basename(logPath)}.reactors.request-`;
  let names: string[];
  try {
    names = await readdir(dirname(logPath));
  } catch {
    return [];
  }
  const claimed: ClaimedRequest[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.json')) continue;
    const id = name.slice(prefix.length, -'.json'.length);
    if (!ID.test(id)) continue;
    const claimedPath = fileOf(logPath, 'claimed', id);
    try {
      await rename(join(dirname(logPath), name), claimedPath);
    } catch {
      continue; // Withdrawn meanwhile.
    }
    let request: ClaimedRequest['request'];
    try {
      request = parseEditRequest(await readFile(claimedPath, 'utf8'));
    } catch (cause) {
      request = { error: `the request could not be read (${(cause as Error).message})` };
    }
    claimed.push({
      request,
      answer: async (answer) => {
        await writeWhole(fileOf(logPath, 'answer', id), JSON.stringify(answer));
        await unlink(claimedPath).catch(() => undefined);
      },
    });
  }
  return claimed;
};

/** Why a request through the runner did not get an answer; `message` is one line. */
export interface EditRequestError {
  readonly kind: 'unanswered' | 'io';
  readonly message: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const id = randomBytes(8).toString('hex');
  const requestPath = fileOf(logPath, 'request', id);
  const answerPath = fileOf(logPath, 'answer', id);
  try {
    await writeWhole(requestPath, JSON.stringify({ signfold: TAG, ...request }));
  } catch (cause) {
    return { kind: 'io', message: `${requestPath}: ${(cause as Error).message}` };
  }
  const readAnswer = async (): Promise<EditAnswer | undefined> => {
    try {
      const text = await readFile(answerPath, 'utf8');
      await unlink(answerPath).catch(() => undefined);
      return JSON.parse(text) as EditAnswer;
    } catch {
      return undefined;
    }
  };
  let deadline = Date.now() + waitMs;
  let claimed = false;
  for (;;) {
    const answer = await readAnswer();
    if (answer !== undefined) return answer;
    if (Date.now() >= deadline) {
      if (claimed) break;
      try {
        await unlink(requestPath);
        return {
          kind: 'unanswered',
          message: `the running 'signfold react' did not take the request within ${waitMs / 1000} s (is it stopped?); nothing was changed`,
        };
      } catch {
        // Claimed in the meantime: the change is being made; wait for its answer as long again.
        claimed = true;
        deadline = Date.now() + waitMs;
      }
    }
    await sleep(25);
  }
  return {
    kind: 'unanswered',
    message: `the running 'signfold react' took the request but gave no answer within ${(2 * waitMs) / 1000} s; see 'signfold effects ${logPath}' for what changed`,
  };
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
