/**
 * `createReadHandler`: the read API and the live report of a file log or a
 * PostgreSQL database as one fetch handler, for any framework. The routes,
 * answers and limits are those of `signfold serve --read-token-env`
 * (docs/read-api.md): the same routes answer, over the same read models.
 */
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import type { FetchHandler, FetchRequest, FetchResponse } from '../engine/fetch-types.js';
import type { ReadModel } from '../engine/read-model.js';
import { openReadModel, type ReadPool } from './open-read-model.js';
import type { createReadLink } from './read-link.js';
import { type ReadRoutes, readRoutes } from './read-routes.js';
import { type ReadTokens, readTokens, type TokenProblem } from './read-tokens.js';

/** A bearer token and the companies whose records it sees. */
export interface ReadToken {
  /** At least 16 characters, no spaces (e.g. `openssl rand -hex 24`). */
  readonly token: string;
  /** Company ids (at least one): a record of any other company is answered 404. */
  readonly companies: readonly number[];
}

/** Options of {@link createReadHandler}: exactly one of `log` and `database`. */
export interface ReadHandlerOptions {
  /**
   * The path of a file log: folded at start, then followed as it grows (its
   * size looked at every {@link followMs}), by whatever process appends to it.
   */
  readonly log?: string;
  /**
   * A PostgreSQL URL (a pool of four connections is opened, every read
   * bounded to 5 s, and ended by `close`) or a `pg` Pool of yours (left
   * open). The state is what `signfold pg work` has projected.
   */
  readonly database?: string | ReadPool;
  /** The database's schema; default `signfold`. */
  readonly schema?: string;
  /** Who may read, and what: a request without one of these tokens is answered 401. */
  readonly tokens: readonly ReadToken[];
  /** How often a file log is looked at for appended records, in ms; default 1000. */
  readonly followMs?: number;
  /** The upcasters a file log's records are folded with (those of its writer). */
  readonly upcasters?: readonly Upcaster[];
}

/** The read API as a fetch handler. */
export interface ReadHandler extends FetchHandler {
  /**
   * Settles once the state is read (a file log folded, a database's pool
   * open); rejects when it cannot be (then every request is answered 503).
   * Requests that come before wait for it.
   */
  readonly ready: Promise<void>;
  /** Stops following the log and releases what the handler opened; never rejects. */
  close(): Promise<void>;
}

/** How often a file log is looked at unless told otherwise: well inside a 5 s staleness bound. */
const DEFAULT_FOLLOW_MS = 1000;

const TOKEN_PROBLEMS: Readonly<Record<TokenProblem['kind'], string>> = {
  empty: 'is empty',
  short: 'must be at least 16 characters without spaces (e.g. openssl rand -hex 24)',
  'no-companies': 'must see at least one company, given as whole numbers',
  same: 'is the same as another token: give each client its own',
};

/** The tokens, checked; a TypeError naming the token by its place (never by its value). */
const checkedTokens = (tokens: readonly ReadToken[]): ReadTokens => {
  if (!Array.isArray(tokens))
    throw new TypeError('tokens must be an array of { token, companies }');
  const named = tokens.map((entry, index) => ({ ...entry, name: `tokens[${index}]` }));
  const checked = readTokens(named);
  if (checked.isErr()) {
    throw new TypeError(`${checked.error.name}: the token ${TOKEN_PROBLEMS[checked.error.kind]}`);
  }
  return checked.value;
};

/** Exactly one of `log` and `database`, and a sensible poll. */
const checkSource = (options: ReadHandlerOptions): void => {
  if ((options.log === undefined) === (options.database === undefined)) {
    throw new TypeError('give exactly one of log (a file log path) and database (a URL or pool)');
  }
  const { followMs } = options;
  if (followMs !== undefined && !(Number.isSafeInteger(followMs) && followMs > 0)) {
    throw new RangeError(`followMs must be a positive whole number of ms (got ${followMs})`);
  }
};

const unavailable = (): FetchResponse =>
  new Response(`${JSON.stringify({ error: 'the state cannot be read now: try again later' })}\n`, {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '5' },
  });

/**
 * Creates the read API on a file log or a PostgreSQL database:
 * `GET /api/sign-requests/ID`, `GET /api/sign-requests?…` and `GET /report`,
 * behind bearer tokens bound to companies (docs/read-api.md, docs/http.md),
 * or a report link of {@link createReadLink} and the cookie it is traded for.
 * Paths are matched as the request's URL gives them: mount it at the root.
 * Throws on invalid options (a TypeError saying which); a request never
 * makes it throw or reject.
 *
 * @example
 * ```ts
 * import { mkdtempSync, writeFileSync } from 'node:fs';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import { createReadHandler } from 'signfold/http';
 *
 * const log = join(mkdtempSync(join(tmpdir(), 'signfold-')), 'events.ndjson');
 * writeFileSync(log, '');
 * const token = 'a-read-token-of-acme-0123456789';
 * const reads = createReadHandler({ log, tokens: [{ token, companies: [1] }] });
 * await reads.ready;
 * const answer = await reads.fetch(
 *   new Request('http://localhost/api/sign-requests', { headers: { authorization: `Bearer ${token}` } }),
 * );
 * console.log(answer.status, (await answer.text()).trim()); // 200 {"signRequests":[],"next":null}
 * await reads.close();
 * ```
 */
export const createReadHandler = (options: ReadHandlerOptions): ReadHandler => {
  checkSource(options);
  const tokens = checkedTokens(options.tokens);
  const opening = openReadModel({
    ...options,
    followMs: options.followMs ?? DEFAULT_FOLLOW_MS,
  }).then((model): [ReadModel, ReadRoutes] => [model, readRoutes(model, tokens)]);
  // Awaited by whoever calls `ready`, `fetch` or `close`; never an unhandled rejection.
  opening.catch(() => undefined);
  let closed = false;
  return {
    ready: opening.then(() => undefined),
    fetch: async (request: FetchRequest): Promise<FetchResponse> => {
      let routes: ReadRoutes;
      try {
        [, routes] = await opening;
      } catch {
        return unavailable();
      }
      const path = new URL(request.url).pathname;
      if (!routes.serves(path)) {
        return Response.json({ error: 'not found' }, { status: 404 });
      }
      return (await routes.answer(path, request)).response;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      const opened = await opening.catch(() => undefined);
      await opened?.[0].close();
    },
  };
};
