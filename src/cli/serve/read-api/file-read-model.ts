/**
 * The read model of `serve --log FILE`: a projector kept in memory that
 * follows the server's own appends. The log is folded once at start; after
 * that each stored delivery is applied as its append commits, so a read
 * costs a lookup (a list, a scan of the requests), never a fold of the log.
 * Serve holds the log's writer lock, so its appends are the only ones: the
 * positions they return follow on from the fold with no gap. Should one go
 * missing all the same (an append whose answer never came), the next read
 * folds the file on from the checkpoint before answering.
 *
 * Memory: the projection and its audit trail, one small entry per event.
 */
import type { SignRequestId } from '../../../core/ids.js';
import { listParticipants } from '../../../core/projections/projection-state.js';
import type { SignRequestView } from '../../../core/projections/records.js';
import type { Upcaster } from '../../../core/upcasters/upcaster-types.js';
import type { AppendOptions } from '../../../engine/event-log.js';
import { JsonText } from '../../../engine/json-text.js';
import { createProjector } from '../../../engine/projector.js';
import type { ReadableLog, StoredRecord } from '../../../engine/projector-types.js';
import { readFileEventLog } from '../../../store/file-record-stream.js';
import type { ServeStorage } from '../storage.js';
import { renderCompanyReport } from './company-report.js';
import {
  type ListPage,
  type ListQuery,
  MAX_AUDIT_ENTRIES,
  type ReadModel,
  type SignRequestDocument,
} from './read-model.js';

/** A file storage whose appends feed a read model. */
export interface FollowedFileLog {
  /** The storage to serve on: the same log, its appends applied to `model` as they commit. */
  readonly storage: ServeStorage;
  readonly model: ReadModel;
  /** How long the fold at start took, in ms (logged: it grows with the log). */
  readonly foldMs: number;
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

/**
 * Folds `path` (read-only: serve's log stays open for appending), then
 * follows the appends of `storage`. `upcasters` are serve's own, so reads
 * see the events its reactors see.
 */
export const followFileLog = async (
  path: string,
  storage: ServeStorage,
  upcasters: readonly Upcaster[],
): Promise<FollowedFileLog> => {
  const projector = createProjector({ audit: true, policy: 'skip', upcasters });
  const file: ReadableLog = { read: (options) => readFileEventLog(path, options) };
  const started = performance.now();
  await projector.replay(file);
  const foldMs = performance.now() - started;
  // Committed appends not applied yet: waiting for an earlier position, or for a catch-up.
  const pending = new Map<number, StoredRecord>();
  let catchingUp: Promise<void> | undefined;
  const drain = (): void => {
    if (catchingUp !== undefined) return;
    for (const position of pending.keys()) {
      if (position <= projector.checkpoint) pending.delete(position);
    }
    for (;;) {
      const next = projector.checkpoint + 1;
      const live = pending.get(next);
      if (live === undefined) return;
      pending.delete(next);
      projector.apply(live);
    }
  };
  /** Up to date with every committed append before a read answers. */
  const current = async (): Promise<void> => {
    drain();
    if (pending.size === 0 && catchingUp === undefined) return;
    catchingUp ??= projector
      .replay(file)
      .then(() => undefined)
      .finally(() => {
        catchingUp = undefined;
      });
    await catchingUp;
    drain();
  };
  const append: ServeStorage['log']['append'] = async (event, options?: AppendOptions) => {
    const appended = await storage.log.append(event, options);
    if (appended.isOk() && appended.value.kind === 'appended') {
      const { position, receivedAt } = appended.value;
      const text = event instanceof JsonText ? event : undefined;
      pending.set(position, {
        position,
        event: text === undefined ? event : text.value,
        receivedAt,
        ...(options?.deliveryId === undefined ? {} : { deliveryId: options.deliveryId }),
        ...(text === undefined ? {} : { raw: text.text }),
      });
      drain();
    }
    return appended;
  };
  const model: ReadModel = {
    signRequest: async (id, companies) => {
      await current();
      const key = id as SignRequestId;
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
      const document: SignRequestDocument = {
        signRequest,
        participants,
        auditTrail: history.slice(0, MAX_AUDIT_ENTRIES),
        ...(history.length > MAX_AUDIT_ENTRIES ? { auditTrailTruncated: true } : {}),
      };
      return document;
    },
    list: async (query, companies, now) => {
      await current();
      const nowMs = now.getTime();
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
      const signRequests = shown.flatMap(
        (id) => projector.getSignRequest(id as SignRequestId) ?? [],
      );
      const last = shown.at(-1);
      const page: ListPage = {
        signRequests,
        next: ids.length > query.limit && last !== undefined ? String(last) : null,
      };
      return page;
    },
    report: (companies) =>
      renderCompanyReport(file, companies, {
        label: `the live state of companies ${[...companies].sort((a, b) => a - b).join(', ')}`,
        inspectSource: ['LOG'],
        upcasters,
      }),
    close: async () => {
      await catchingUp?.catch(() => undefined);
    },
  };
  return { storage: { ...storage, log: { append } }, model, foldMs };
};
