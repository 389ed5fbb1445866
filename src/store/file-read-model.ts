/**
 * The read model of a file log: a projector kept in memory. The log is
 * folded once at start; after that it follows the log in one of two ways.
 * The writer (`serve --log FILE`, which holds the writer lock) tells it of
 * each append as it commits, so a read costs a lookup (a list, a scan of the
 * requests), never a fold of the log; should a position go missing all the
 * same (an append whose answer never came), the next read folds the file on
 * from the checkpoint before answering. A reader in another process (the
 * read handler of `signfold/http`) polls the file's size instead, and folds
 * on what was appended, as `react` follows a log.
 *
 * Memory: the projection and its audit trail, one small entry per event.
 */
import { stat } from 'node:fs/promises';
import type { SignRequestId } from '../core/ids.js';
import { listParticipants } from '../core/projections/projection-state.js';
import type { SignRequestView } from '../core/projections/records.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import { createProjector, type Projector } from '../engine/projector.js';
import type { ReadableLog, StoredRecord } from '../engine/projector-types.js';
import {
  type ListPage,
  type ListQuery,
  MAX_AUDIT_ENTRIES,
  type ReadModel,
  type SignRequestDocument,
} from '../engine/read-model.js';
import { readFileEventLog } from './file-record-stream.js';

/** A read model of a file log, kept in memory. */
export interface FileReadModel extends ReadModel {
  /** How long the fold at start took, in ms (worth logging: it grows with the log). */
  readonly foldMs: number;
  /**
   * Tells the model of an append that committed, by the process that holds
   * the log's writer lock: applied in position order as soon as the ones
   * before it are, so the writer's own reads see it at once.
   */
  committed(live: StoredRecord): void;
}

/** How {@link openFileReadModel} reads the log. */
export interface FileReadModelOptions {
  /** Applied as the writer's reactors apply them, so reads see the events they see. */
  readonly upcasters?: readonly Upcaster[];
  /**
   * Looks for records another process appended every this many ms (and
   * folds them on); absent, only {@link FileReadModel.committed} and a gap
   * in its positions make the model read the file again.
   */
  readonly followMs?: number;
}

/** Whether `request` matches the list's filters (the company and the cursor are checked apart). */
const matches = (request: SignRequestView, query: ListQuery, nowMs: number): boolean => {
  if (query.status === 'deleted') return request.deleted;
  if (request.deleted) return false;
  if (query.stuckAfterMs !== undefined) {
    if (request.status !== 'sent' || request.sentAt === null) return false;
    return Date.parse(request.sentAt) <= nowMs - query.stuckAfterMs;
  }
  return query.status === undefined || request.status === query.status;
};

/** The request `key` as its document, or `undefined` when absent or of another company. */
const documentOf = (
  projector: Projector,
  key: SignRequestId,
  companies: ReadonlySet<number>,
): SignRequestDocument | undefined => {
  const signRequest = projector.getSignRequest(key);
  const company = signRequest?.companyId ?? null;
  if (signRequest === undefined || company === null || !companies.has(company)) {
    return undefined;
  }
  // Copied now: the projection changes in place under later appends.
  const participants = projector.peekState((state) =>
    [...listParticipants(state, key)].map((p) => ({ ...p })),
  );
  participants.sort((a, b) => a.id - b.id);
  const history = projector.signRequestHistory(key);
  return {
    signRequest,
    participants,
    auditTrail: history.slice(0, MAX_AUDIT_ENTRIES),
    ...(history.length > MAX_AUDIT_ENTRIES ? { auditTrailTruncated: true } : {}),
  };
};

/** One page of `companies`' requests that match `query`. */
const pageOf = (
  projector: Projector,
  query: ListQuery,
  companies: ReadonlySet<number>,
  nowMs: number,
): ListPage => {
  const ids = projector.peekState((state) => {
    const found: number[] = [];
    for (const request of state.signRequests.values()) {
      const company = request.companyId;
      if (company === null || !companies.has(company)) continue;
      if (query.company !== undefined && company !== query.company) continue;
      if (query.after !== undefined && request.id <= query.after) continue;
      if (matches(request, query, nowMs)) found.push(request.id);
    }
    return found;
  });
  ids.sort((a, b) => a - b);
  const shown = ids.slice(0, query.limit);
  const signRequests = shown.flatMap((id) => projector.getSignRequest(id as SignRequestId) ?? []);
  const last = shown.at(-1);
  return {
    signRequests,
    next: ids.length > query.limit && last !== undefined ? String(last) : null,
  };
};

/** Keeps a projector caught up with a file: the writer's appends, and folds of what it missed. */
class FileFollower {
  readonly #projector: Projector;
  readonly #file: ReadableLog;
  /** Committed appends not applied yet: waiting for an earlier position, or for a catch-up. */
  readonly #pending = new Map<number, StoredRecord>();
  #catchingUp: Promise<void> | undefined;

  constructor(projector: Projector, file: ReadableLog) {
    this.#projector = projector;
    this.#file = file;
  }

  committed(live: StoredRecord): void {
    this.#pending.set(live.position, live);
    this.#drain();
  }

  /** Up to date with every committed append (and, when `reread`, with the file) before a read answers. */
  async current(reread = false): Promise<void> {
    this.#drain();
    if (!reread && this.#pending.size === 0 && this.#catchingUp === undefined) return;
    this.#catchingUp ??= this.#projector
      .replay(this.#file)
      .then(() => undefined)
      .finally(() => {
        this.#catchingUp = undefined;
      });
    await this.#catchingUp;
    this.#drain();
  }

  /** Waits for a fold in progress, whatever it ends in. */
  async settled(): Promise<void> {
    await this.#catchingUp?.catch(() => undefined);
  }

  #drain(): void {
    if (this.#catchingUp !== undefined) return;
    const projector = this.#projector;
    for (const position of this.#pending.keys()) {
      if (position <= projector.checkpoint) this.#pending.delete(position);
    }
    for (;;) {
      const live = this.#pending.get(projector.checkpoint + 1);
      if (live === undefined) return;
      this.#pending.delete(live.position);
      projector.apply(live);
    }
  }
}

const sizeOf = async (path: string): Promise<number | undefined> =>
  stat(path).then(
    (found) => found.size,
    () => undefined,
  );

/**
 * Polls the size of `path` every `everyMs` and, when it changed, has
 * `follower` fold the file on (`folded`: its size before the first fold). A failed look is tried again at the next
 * poll (a read answers 503 meanwhile only if it too fails). Returns the stop.
 */
const pollFile = (
  path: string,
  everyMs: number,
  follower: FileFollower,
  folded: number | undefined,
): (() => void) => {
  let size = folded;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const look = async (): Promise<void> => {
    const now = await sizeOf(path);
    if (now !== size) {
      // A fold that fails (the file unreadable for now) is tried again at the next poll.
      await follower.current(true).then(
        () => {
          size = now;
        },
        () => undefined,
      );
    }
    // One poll at a time, however slow a fold: the next starts when this one ended.
    if (!stopped) timer = setTimeout(look, everyMs).unref();
  };
  timer = setTimeout(look, everyMs).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};

/**
 * Folds the file log at `path` (read only: the log may be open for
 * appending elsewhere) and keeps the fold current: with
 * {@link FileReadModel.committed} from the writer, or by polling every
 * `followMs`. Rejects when the log cannot be read.
 */
export const openFileReadModel = async (
  path: string,
  options: FileReadModelOptions = {},
): Promise<FileReadModel> => {
  const upcasters = options.upcasters ?? [];
  const projector = createProjector({ audit: true, policy: 'skip', upcasters });
  const file: ReadableLog = { read: (read) => readFileEventLog(path, read) };
  // Taken before the fold: what is appended meanwhile only costs one more fold on.
  const folded = options.followMs === undefined ? undefined : await sizeOf(path);
  const started = performance.now();
  await projector.replay(file);
  const foldMs = performance.now() - started;
  const follower = new FileFollower(projector, file);
  const stop =
    options.followMs === undefined
      ? () => undefined
      : pollFile(path, options.followMs, follower, folded);
  return {
    foldMs,
    committed: (live) => follower.committed(live),
    signRequest: async (id, companies) => {
      await follower.current();
      return documentOf(projector, id as SignRequestId, companies);
    },
    list: async (query, companies, now) => {
      await follower.current();
      return pageOf(projector, query, companies, now.getTime());
    },
    events: () => file,
    source: { inspectSource: ['LOG'], upcasters },
    close: async () => {
      stop();
      await follower.settled();
    },
  };
};
