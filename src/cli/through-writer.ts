/**
 * `reconcile` and `forget` on a file log whose writer lock another process
 * holds: the request goes to that process (`signfold serve --log` takes
 * them: src/store/writer-requests.ts), and every way it can go wrong ends in
 * one line that names the command and says what would help.
 */
import { hostname } from 'node:os';
import { visibleText } from '../core/visible-text.js';
import type { LogError } from '../store/log-error.js';
import type { ChannelFailure } from '../store/request-channel.js';
import { askWriter, type OutgoingWriterRequest } from '../store/writer-requests.js';
import { CliError } from './cli-error.js';

/** The process holding the log, as its lock file tells. */
export interface WriterHolder {
  readonly path: string;
  readonly pid: number;
  /** The lock refusal's message: it names the command and what helps. */
  readonly refusal: string;
  /** `signfold reconcile`, `signfold forget`. */
  readonly command: string;
  readonly waitMs: number;
  /** Whether it runs on this host (only then can it be seen to have exited). */
  readonly local: boolean;
}

/** The holder to go through for a `locked` open error, or `undefined` when there is none to ask. */
export const writerHolderOf = (
  error: LogError,
  command: string,
  waitMs: number,
): WriterHolder | undefined =>
  error.kind === 'locked' && error.holder !== undefined && error.holder.pid !== process.pid
    ? {
        path: error.path,
        pid: error.holder.pid,
        refusal: error.message,
        command,
        waitMs,
        local: error.holder.host === hostname(),
      }
    : undefined;

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const secondsText = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The one line for a request that got no answer. */
const failureMessage = (holder: WriterHolder, failure: ChannelFailure, after: string): string => {
  switch (failure.kind) {
    case 'io':
      return `${holder.command}: cannot hand the request to pid ${holder.pid}: ${failure.message}`;
    case 'unclaimed':
      return `${holder.refusal}. Pid ${holder.pid} did not take ${holder.command}'s request within ${secondsText(failure.waitedMs)} (only a running 'signfold serve --log' takes them: it may be stopped or paused, an older signfold, or another writer), so nothing was changed`;
    case 'unanswered':
      return `${holder.command}: pid ${holder.pid} took the request but ${failure.gone ? 'exited before answering' : `showed no progress for ${secondsText(failure.waitedMs)}`}; ${after}`;
  }
};

/**
 * Asks the holder `request`; its answer, or a CliError (exit 2) saying why
 * there is none. `after` says what state the log may be in when the holder
 * took the request and gave no answer.
 */
export const askHolder = async (
  holder: WriterHolder,
  request: OutgoingWriterRequest,
  after: string,
  { refusalThrows = true }: { readonly refusalThrows?: boolean } = {},
): Promise<Record<string, unknown>> => {
  const sent = await askWriter(holder.path, request, {
    claimMs: holder.waitMs,
    ...(holder.local ? { holderAlive: () => isAlive(holder.pid) } : {}),
  });
  if (!('answer' in sent)) throw new CliError(failureMessage(holder, sent, after));
  const { answer } = sent;
  if (typeof answer.error === 'string' && refusalThrows) {
    throw new CliError(
      `${holder.command}: pid ${holder.pid} refused the request: ${visibleText(answer.error)}`,
    );
  }
  return answer;
};

/** The line a command adds when it went through the holder. */
export const throughLine = (holder: WriterHolder): string =>
  `${holder.command}: went through the running process that holds ${holder.path} (pid ${holder.pid})`;
