/**
 * `reconcile` and `forget` on a file log that `signfold serve --log` holds:
 * the command hands the running writer a request on the `writer` request
 * channel (request-channel.ts: `LOG.writer.request-ID.json`, claimed,
 * answered) and the writer carries it out with its own log.
 *
 * - `hello`: answered at once; a command asks it first, so that a holder
 *   that takes no requests (stopped, an older signfold, another writer) is
 *   found before anything is fetched or changed.
 * - `observations`: observation records to append. The writer rebuilds each
 *   from its decoded representation (what it stores is what `reconcile`
 *   would store, never the request's bytes) and appends it under a delivery
 *   id made of its content, so a request carried out twice, or the same
 *   observation sent again, is stored once.
 * - `forget`: the writer runs the same forget as on a stopped log, with its
 *   appends held back meanwhile, then opens the log again (and so stores the
 *   deliveries that come later for the person with the pseudonym).
 *
 * A request file is input like any other: whatever it holds, the writer
 * answers an error and changes nothing, or carries out a valid request.
 */
import { createHash } from 'node:crypto';
import type { Result } from 'neverthrow';
import type { CompanyId } from '../core/ids.js';
import { OBSERVATION_RECORD } from '../core/observations/observation.js';
import { observationRecord } from '../core/observations/observation-record.js';
import { decodeSignRequest } from '../core/sign-request/decode-sign-request.js';
import { encodeSignRequest } from '../core/sign-request/encode-sign-request.js';
import type { AppendOutcome, LogFailure, NewRecord } from '../engine/event-log.js';
import type { ForgetReport, ForgetRequest } from '../engine/forget-report.js';
import { type ChannelFailure, claimRequests, sendRequest } from './request-channel.js';

const TAG = 'signfold-writer-request';

/** Most observation records one request may carry. */
export const MAX_OBSERVATIONS = 1000;

/** A request to the running writer of a file log. */
export type WriterRequest =
  | { readonly action: 'hello' }
  | { readonly action: 'observations'; readonly records: readonly NewRecord[] }
  | { readonly action: 'forget'; readonly forget: ForgetRequest };

/** What the writer answers: the action's result, or why it was not carried out. */
export type WriterAnswer =
  | { readonly hello: true; readonly pid: number }
  | {
      readonly appended: readonly {
        readonly signRequestId: number;
        readonly position: number;
        readonly duplicate: boolean;
      }[];
    }
  | { readonly report: ForgetReport }
  | { readonly error: string };

type Parsed<T> = T | { readonly error: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** The delivery id an observation is stored under: its content, whenever it was fetched. */
const observationKey = (companyId: number | undefined, signRequest: object): string =>
  `signfold-observation-${createHash('sha256')
    .update(JSON.stringify({ companyId: companyId ?? null, signRequest }))
    .digest('hex')
    .slice(0, 32)}`;

/** One observation record of a request, rebuilt from its decoded parts. */
const parseObservation = (value: unknown, index: number): Parsed<NewRecord> => {
  const where = `record ${index + 1}`;
  if (!isObject(value) || value.record !== OBSERVATION_RECORD) {
    return { error: `${where} is not an observation record` };
  }
  const decoded = decodeSignRequest(value.signRequest);
  if (decoded.isErr()) return { error: `${where}: signRequest is not a sign request` };
  if (value.signRequestId !== decoded.value.id) {
    return { error: `${where}: signRequestId is not the id of its signRequest` };
  }
  const { companyId, fetchedAt } = value;
  if (companyId !== undefined && !isId(companyId)) {
    return { error: `${where}: companyId must be an integer` };
  }
  const at = typeof fetchedAt === 'string' ? new Date(fetchedAt) : undefined;
  if (at === undefined || Number.isNaN(at.getTime()) || at.toISOString() !== fetchedAt) {
    return { error: `${where}: fetchedAt must be an ISO time` };
  }
  const event = observationRecord(decoded.value, {
    fetchedAt: at,
    ...(companyId === undefined ? {} : { companyId: companyId as CompanyId }),
  });
  return {
    event,
    deliveryId: observationKey(companyId, encodeSignRequest(decoded.value)),
  };
};

const idList = (value: unknown): readonly number[] | undefined =>
  value === undefined
    ? []
    : Array.isArray(value) && value.length <= 1000 && value.every(isId)
      ? (value as number[])
      : undefined;

const parseForget = (value: unknown): Parsed<ForgetRequest> => {
  if (!isObject(value)) return { error: 'forget must be an object' };
  const participantIds = idList(value.participantIds);
  const userIds = idList(value.userIds);
  if (participantIds === undefined || userIds === undefined) {
    return { error: 'participantIds and userIds must be lists of integers' };
  }
  const { names, companyId } = value;
  if (
    !Array.isArray(names) ||
    names.length > 1000 ||
    !names.every((n) => typeof n === 'string' && n.length > 0 && n === n.normalize('NFC'))
  ) {
    return { error: 'names must be a list of non-empty texts' };
  }
  if (participantIds.length + userIds.length + names.length === 0) {
    return { error: 'the request names nobody to forget' };
  }
  if (companyId !== undefined && !isId(companyId)) {
    return { error: 'companyId must be an integer' };
  }
  return {
    participantIds: [...new Set(participantIds)],
    userIds: [...new Set(userIds)],
    names: [...new Set(names as string[])],
    dryRun: false,
    ...(companyId === undefined ? {} : { companyId }),
  };
};

/** Reads a request's JSON, or says what is wrong with it. */
export const parseWriterRequest = (text: string): Parsed<WriterRequest> => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'the request is not JSON' };
  }
  if (!isObject(value)) return { error: 'the request is not an object' };
  if (value.signfold !== TAG) return { error: 'not a request to the log writer' };
  switch (value.action) {
    case 'hello':
      return { action: 'hello' };
    case 'observations': {
      const { records } = value;
      if (!Array.isArray(records) || records.length === 0 || records.length > MAX_OBSERVATIONS) {
        return { error: `records must be a list of 1 to ${MAX_OBSERVATIONS} observation records` };
      }
      const parsed: NewRecord[] = [];
      for (const [i, record] of records.entries()) {
        const one = parseObservation(record, i);
        if ('error' in one) return one;
        parsed.push(one);
      }
      return { action: 'observations', records: parsed };
    }
    case 'forget': {
      const forget = parseForget(value.forget);
      return 'error' in forget ? forget : { action: 'forget', forget };
    }
    default:
      return { error: 'action must be hello, observations or forget' };
  }
};

/** What the writer needs to carry out requests. */
export interface WriterRequestHandlers {
  /** Appends records through the writer's own log (its deliveries' queue). */
  appendBatch(records: readonly NewRecord[]): Promise<Result<readonly AppendOutcome[], LogFailure>>;
  /** Runs forget with the appends held back; `undefined` when this writer cannot. */
  forget?: (request: ForgetRequest) => Promise<Result<ForgetReport, { readonly message: string }>>;
  /** Why this writer cannot forget (shown to the command), when `forget` is absent. */
  readonly forgetRefusal?: string;
}

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause);

/** Carries out one request; never throws. */
export const carryOut = async (
  request: Parsed<WriterRequest>,
  handlers: WriterRequestHandlers,
): Promise<WriterAnswer> => {
  if ('error' in request) return request;
  try {
    switch (request.action) {
      case 'hello':
        return { hello: true, pid: process.pid };
      case 'observations': {
        const appended = await handlers.appendBatch(request.records);
        if (appended.isErr()) return { error: `append failed: ${appended.error.message}` };
        return {
          appended: appended.value.map((outcome, i) => ({
            signRequestId:
              (request.records[i]?.event as { signRequestId?: number } | undefined)
                ?.signRequestId ?? 0,
            position: outcome.position,
            duplicate: outcome.kind === 'duplicate',
          })),
        };
      }
      case 'forget': {
        if (handlers.forget === undefined) {
          return { error: handlers.forgetRefusal ?? 'this writer cannot forget' };
        }
        const forgotten = await handlers.forget(request.forget);
        return forgotten.isErr() ? { error: forgotten.error.message } : { report: forgotten.value };
      }
    }
  } catch (cause) {
    return { error: `the writer failed: ${messageOf(cause)}` };
  }
};

/**
 * Claims the requests waiting beside `logPath` and carries them out one
 * after another, each answered before the next starts. Never throws.
 */
export const serveWriterRequests = async (
  logPath: string,
  handlers: WriterRequestHandlers,
): Promise<number> => {
  const claimed = await claimRequests(logPath, 'writer', parseWriterRequest);
  for (const one of claimed) {
    const stopWorking = one.working();
    try {
      const answer = await carryOut(one.request, handlers);
      await one.answer(answer).catch(() => undefined);
    } finally {
      stopWorking();
    }
  }
  return claimed.length;
};

/** A request as a command sends it: observation records as `observationRecord` makes them. */
export type OutgoingWriterRequest =
  | { readonly action: 'hello' }
  | { readonly action: 'observations'; readonly records: readonly Record<string, unknown>[] }
  | { readonly action: 'forget'; readonly forget: ForgetRequest };

/** Sends `request` to the writer of `logPath`; the answer, checked to be an object. */
export const askWriter = async (
  logPath: string,
  request: OutgoingWriterRequest,
  options: Parameters<typeof sendRequest>[3],
): Promise<{ readonly answer: Record<string, unknown> } | ChannelFailure> => {
  const sent = await sendRequest(logPath, 'writer', { signfold: TAG, ...request }, options);
  if (!('answer' in sent)) return sent;
  return isObject(sent.answer)
    ? { answer: sent.answer }
    : { answer: { error: 'the answer is not an object' } };
};
