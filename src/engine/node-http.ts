/**
 * The two shapes of `node:http` that signfold's glues take: the request and
 * the response, as far as they use them. One copy for both glues (the fetch
 * handlers' in `signfold/http`, the webhook handler's in `signfold/webhooks`),
 * here because adapters may not import each other and these are ports, not
 * I/O. Typed structurally, so the declarations need no `@types/node`: an
 * `IncomingMessage` and a `ServerResponse` fit, and so does Express's.
 */

/** The parts of a node:http `IncomingMessage` the glues use. */
export interface NodeIncoming {
  readonly method?: string | undefined;
  /** The request target: the path and the query string. */
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** `true` once the body was read to its end (by a body parser that ran first, say). */
  readonly readableEnded?: boolean;
  /** Each piece of the body as it arrives. */
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  /** The body ended, or the client went away before it did. */
  on(event: 'end' | 'aborted' | 'close', listener: () => void): unknown;
  /** The connection failed: nothing more arrives. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Reads (and drops) the rest of a body that is not wanted. */
  resume(): unknown;
}

/**
 * The parts of a node:http `ServerResponse` the glues use. `Body` is what a
 * glue writes: bytes for the fetch handlers' (the default), text for the
 * webhook handler's answers.
 */
export interface NodeOutgoing<Body extends string | Uint8Array = Uint8Array> {
  readonly headersSent: boolean;
  /** Sends the status line and the headers. */
  writeHead(status: number, headers: Record<string, string | string[]>): unknown;
  /** Sends the body (none for HEAD and the statuses without one) and ends the answer. */
  end(body?: Body): unknown;
}
