/**
 * `signfold/core`: the pure domain, for code that runs without Node (a web
 * page, an edge function, a worker): the decoders and encoders, the
 * projections with `reduce`, `fold` and their queries. Nothing it loads
 * imports a `node:` module or does I/O, so it bundles for a browser as is.
 * Every export here is also an export of `signfold`, so code moves between
 * the two without renaming: both re-export `domain.ts`, which lists the pure
 * domain once.
 *
 * @packageDocumentation
 */

export * from './domain.js';
