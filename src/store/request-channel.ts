/**
 * Requests to the process that holds a file log (`signfold react` for its
 * reactor journal, `signfold serve --log` for the log's writer), handed over
 * in files beside the log. Files, not a socket: the log's directory is the
 * one thing both sides already share, a request survives neither side's
 * crash in a half state (each file is written whole and renamed into place),
 * and a stopped holder is seen as a request nobody claims, which the command
 * withdraws after a bounded wait.
 *
 * The protocol, by file name beside the log (CHANNEL names the holder's
 * side, `reactors` or `writer`; ID is 16 random hex digits):
 * - `LOG.CHANNEL.request-ID.json`: written by the command (temporary file,
 *   then rename: `replaceFile`).
 * - `LOG.CHANNEL.claimed-ID.json`: the holder claims a request by renaming
 *   it, reads it and empties it; the command can no longer withdraw it and
 *   waits for the answer. While
 *   the holder works on it, it touches the file every second or so: the
 *   command gives up once the file has been still for its bound.
 * - `LOG.CHANNEL.answer-ID.json`: the holder's answer, written once the
 *   request is carried out (temporary file, then rename); the command reads
 *   and removes it.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, stat, truncate, unlink, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { replaceFile } from './replace-file.js';

/** Whose requests: the reactor runner's (`effects`), or the log writer's (`reconcile`, `forget`). */
export type RequestChannel = 'reactors' | 'writer';

const ID = /^[0-9a-f]{16}$/;

/** Bytes a request file may hold; a larger one is answered with an error unread. */
export const MAX_REQUEST_BYTES = 16 << 20;

const fileOf = (
  logPath: string,
  channel: RequestChannel,
  kind: 'request' | 'claimed' | 'answer',
  id: string,
): string => `${logPath}.${channel}.${kind}-${id}.json`;

/** A request the holder has claimed: carry it out, then answer. */
export interface ClaimedRequest<R> {
  /** The request read, or why it could not be (a request file is input like any other). */
  readonly request: R | { readonly error: string };
  /** Touches the claimed file every `everyMs` until the returned function is called. */
  working(everyMs?: number): () => void;
  answer(answer: unknown): Promise<void>;
}

/**
 * Claims the requests waiting beside `logPath` on `channel` (none: an empty
 * list), each read with `parse`. Never throws: a request another claimant
 * took first or a file that vanished is passed over.
 */
export const claimRequests = async <R>(
  logPath: string,
  channel: RequestChannel,
  parse: (text: string) => R | { readonly error: string },
): Promise<ClaimedRequest<R>[]> => {
  const prefix = `${basename(logPath)}.${channel}.request-`;
  let names: string[];
  try {
    names = await readdir(dirname(logPath));
  } catch {
    return [];
  }
  const claimed: ClaimedRequest<R>[] = [];
  for (const name of names.sort()) {
    if (!name.startsWith(prefix) || !name.endsWith('.json')) continue;
    const id = name.slice(prefix.length, -'.json'.length);
    if (!ID.test(id)) continue;
    const claimedPath = fileOf(logPath, channel, 'claimed', id);
    try {
      await rename(join(dirname(logPath), name), claimedPath);
    } catch {
      continue; // Withdrawn meanwhile.
    }
    let request: ClaimedRequest<R>['request'];
    try {
      const size = (await stat(claimedPath)).size;
      request =
        size > MAX_REQUEST_BYTES
          ? { error: `the request is larger than ${MAX_REQUEST_BYTES} bytes` }
          : parse(await readFile(claimedPath, 'utf8'));
      // Read once: what it held (a name to forget) stays in no file while the request is carried out.
      await truncate(claimedPath, 0);
    } catch (cause) {
      request = { error: `the request could not be read (${(cause as Error).message})` };
    }
    claimed.push({
      request,
      working: (everyMs = 1000) => {
        const timer = setInterval(() => {
          const at = new Date();
          utimes(claimedPath, at, at).catch(() => undefined);
        }, everyMs);
        return () => clearInterval(timer);
      },
      answer: async (answer) => {
        await replaceFile(fileOf(logPath, channel, 'answer', id), JSON.stringify(answer));
        await unlink(claimedPath).catch(() => undefined);
      },
    });
  }
  return claimed;
};

/** Why a request got no answer. */
export type ChannelFailure =
  /** Nobody claimed it within `waitedMs`; it was withdrawn, so nothing was done. */
  | { readonly kind: 'unclaimed'; readonly waitedMs: number }
  /** Claimed, but no answer came: the holder went still for `waitedMs`, or `gone` (it exited). */
  | { readonly kind: 'unanswered'; readonly waitedMs: number; readonly gone: boolean }
  | { readonly kind: 'io'; readonly message: string };

/** How long {@link sendRequest} waits. */
export interface SendOptions {
  /** For the holder to claim the request. */
  readonly claimMs: number;
  /** Once claimed: for the answer while the holder shows no sign of work (default `claimMs`). */
  readonly idleMs?: number;
  /** Asked about once a second while waiting: `false` when the holder is known to have exited. */
  readonly holderAlive?: () => boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const mtimeOf = async (path: string): Promise<number | undefined> => {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
};

/**
 * Hands `request` to the holder of `logPath` on `channel` and waits for its
 * answer (parsed JSON, unchecked): at most `claimMs` for the holder to claim
 * it (then the request is withdrawn and nothing was done), then as long as
 * the holder keeps working on it (see {@link SendOptions}).
 */
export const sendRequest = async (
  logPath: string,
  channel: RequestChannel,
  request: object,
  options: SendOptions,
): Promise<{ readonly answer: unknown } | ChannelFailure> => {
  const id = randomBytes(8).toString('hex');
  const requestPath = fileOf(logPath, channel, 'request', id);
  const claimedPath = fileOf(logPath, channel, 'claimed', id);
  const answerPath = fileOf(logPath, channel, 'answer', id);
  try {
    await replaceFile(requestPath, JSON.stringify(request));
  } catch (cause) {
    return { kind: 'io', message: `${requestPath}: ${(cause as Error).message}` };
  }
  const readAnswer = async (): Promise<{ readonly answer: unknown } | undefined> => {
    let text: string;
    try {
      text = await readFile(answerPath, 'utf8');
    } catch {
      return undefined;
    }
    await unlink(answerPath).catch(() => undefined);
    try {
      return { answer: JSON.parse(text) };
    } catch {
      return { answer: { error: 'the answer is not JSON' } };
    }
  };
  const idleMs = options.idleMs ?? options.claimMs;
  const started = Date.now();
  let claimedSeenAt: number | undefined;
  let aliveAskedAt = started;
  for (;;) {
    const answer = await readAnswer();
    if (answer !== undefined) return answer;
    const now = Date.now();
    if (claimedSeenAt === undefined) {
      if (now - started >= options.claimMs) {
        try {
          await unlink(requestPath);
          return { kind: 'unclaimed', waitedMs: options.claimMs };
        } catch {
          claimedSeenAt = now; // Claimed in the meantime: wait for its answer.
        }
      } else if ((await mtimeOf(requestPath)) === undefined) {
        claimedSeenAt = now;
      }
    } else {
      const touched = (await mtimeOf(claimedPath)) ?? 0;
      let gone = false;
      if (options.holderAlive !== undefined && now - aliveAskedAt >= 1000) {
        aliveAskedAt = now;
        gone = !options.holderAlive();
      }
      if (gone || now - Math.max(claimedSeenAt, touched) >= idleMs) {
        const last = await readAnswer();
        if (last !== undefined) return last;
        // The request may hold what must not stay (a name to forget): the command removes what it
        // wrote. A holder that comes back (SIGCONT) still answers; its answer then lies unread.
        await unlink(claimedPath).catch(() => undefined);
        return { kind: 'unanswered', waitedMs: now - claimedSeenAt, gone };
      }
    }
    await sleep(25);
  }
};
