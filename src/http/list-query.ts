/**
 * The query string of `GET /api/sign-requests`, checked in full: an unknown
 * parameter, a repeated one or a malformed value is a 400 naming it, never a
 * guess (a misspelt `stauts=` silently listing everything would look like an
 * answer).
 */
import { err, ok, type Result } from 'neverthrow';
import { visibleText } from '../core/visible-text.js';
import type { ListQuery } from '../engine/read-model.js';

/** Requests per page unless `limit` says otherwise. */
export const DEFAULT_PAGE_SIZE = 50;
/** The largest `limit`: a page stays a few hundred KiB of JSON at most. */
export const MAX_PAGE_SIZE = 500;

const STATUSES = ['draft', 'sent', 'completed', 'declined', 'deleted'] as const;
const KNOWN = new Set(['status', 'stuck-after', 'company', 'limit', 'cursor']);
// Ids as the wire and the other flags write them: a safe integer in decimal digits.
const ID = /^-?[0-9]{1,16}$/;
const DURATION = /^([0-9]{1,9})([smhdw])$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
/** Longest value quoted back in an error: the answer stays one short line. */
const QUOTED = 40;

const quoted = (value: string): string =>
  visibleText(value.length > QUOTED ? `${value.slice(0, QUOTED)}…` : value);

/** A whole number as the wire writes ids, or `undefined`. */
export const idOf = (text: string): number | undefined => {
  if (!ID.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id + 0 : undefined;
};

const durationOf = (text: string): number | undefined => {
  const match = DURATION.exec(text);
  const ms = Number(match?.[1]) * (UNIT_MS[match?.[2] ?? ''] ?? Number.NaN);
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
};

/** The list query of `search` (the part after `?`, without it), or the one-line reason it is refused. */
export const parseListQuery = (search: string): Result<ListQuery, string> => {
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(search);
  } catch {
    return err('the query string does not parse');
  }
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!KNOWN.has(key)) {
      return err(
        `unknown parameter '${quoted(key)}' (known: status, stuck-after, company, limit, cursor)`,
      );
    }
    if (seen.has(key)) return err(`parameter '${key}' is given twice`);
    seen.add(key);
  }
  const status = params.get('status') ?? undefined;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    return err(`status must be one of ${STATUSES.join(', ')} (got '${quoted(status)}')`);
  }
  const stuckRaw = params.get('stuck-after') ?? undefined;
  const stuckAfterMs = stuckRaw === undefined ? undefined : durationOf(stuckRaw);
  if (stuckRaw !== undefined && stuckAfterMs === undefined) {
    return err(
      `stuck-after must be a positive duration such as 7d, 36h, 90m, 45s or 2w (got '${quoted(stuckRaw)}')`,
    );
  }
  if (stuckAfterMs !== undefined && status !== undefined && status !== 'sent') {
    return err('stuck-after lists open (sent) requests: leave status out or make it sent');
  }
  const companyRaw = params.get('company') ?? undefined;
  const company = companyRaw === undefined ? undefined : idOf(companyRaw);
  if (companyRaw !== undefined && company === undefined) {
    return err(`company must be a company id (got '${quoted(companyRaw)}')`);
  }
  const limitRaw = params.get('limit') ?? undefined;
  const limit = limitRaw === undefined ? DEFAULT_PAGE_SIZE : idOf(limitRaw);
  if (limit === undefined || limit < 1 || limit > MAX_PAGE_SIZE) {
    return err(`limit must be 1 to ${MAX_PAGE_SIZE} (got '${quoted(limitRaw ?? '')}')`);
  }
  const cursorRaw = params.get('cursor') ?? undefined;
  const after = cursorRaw === undefined ? undefined : idOf(cursorRaw);
  if (cursorRaw !== undefined && after === undefined) {
    return err(`cursor must be the next of a previous page (got '${quoted(cursorRaw)}')`);
  }
  return ok({
    status: status as ListQuery['status'],
    stuckAfterMs,
    company,
    limit,
    after,
  });
};
