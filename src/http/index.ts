/**
 * `signfold/http`: the read API, the live report and the health answers as
 * handlers of one shape, a WHATWG `Request` in and a `Response` out, for
 * Hono, Fastify, Express, Bun, Deno and edge runtimes; and the glue that
 * mounts any of them (the webhook handler's `fetch` too) on `node:http`.
 * See docs/http.md.
 */
export type { FetchHandler, FetchRequest, FetchResponse } from '../engine/fetch-types.js';
export type { NodeIncoming, NodeOutgoing } from '../engine/node-http.js';
export type { ListPage, SignRequestDocument } from '../engine/read-model.js';
export { createHealthHandler, type HealthHandlerOptions } from './health-handler.js';
export { type NodeListenerOptions, nodeListener } from './node-listener.js';
export type { ReadPool } from './open-read-model.js';
export {
  createReadHandler,
  type ReadHandler,
  type ReadHandlerOptions,
  type ReadToken,
} from './read-handler.js';
export {
  createReadLink,
  DEFAULT_READ_LINK_MS,
  MAX_READ_LINK_MS,
  type ReadLinkOptions,
} from './read-link.js';
