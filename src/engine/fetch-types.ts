/**
 * The one shape every HTTP handler of signfold has: a WHATWG `Request` in,
 * a `Response` out, as Hono, Bun, Deno and edge runtimes call handlers.
 * Named through `globalThis`, so the declarations compile without the DOM
 * library or `@types/node` (an edge function's project has neither): where
 * the globals are declared these are exactly `Request` and `Response`, and
 * elsewhere the few members signfold itself uses.
 */

/** The members of a `Request` signfold reads, where no `Request` type is declared. */
interface RequestMembers {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly body: unknown;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The members of a `Response` signfold writes, where no `Response` type is declared. */
interface ResponseMembers {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
  text(): Promise<string>;
}

/** The runtime's `Request`. */
export type FetchRequest = typeof globalThis extends { Request: { prototype: infer R } }
  ? R
  : RequestMembers;

/** The runtime's `Response`. */
export type FetchResponse = typeof globalThis extends { Response: { prototype: infer R } }
  ? R
  : ResponseMembers;

/** A handler of the one shape: mount `fetch` in any framework that speaks `Request`/`Response`. */
export interface FetchHandler {
  /** Answers one request; never rejects (a failure inside is a 5xx answer). */
  fetch(request: FetchRequest): Promise<FetchResponse>;
}
