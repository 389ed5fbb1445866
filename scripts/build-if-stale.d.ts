/** When dist/ was built (ms since the epoch), or `undefined` when there is no build. */
export function builtAt(): number | undefined;

/** Why dist/ must be rebuilt (missing, or older than src/ or the build configuration), or `undefined`. */
export function staleReason(): string | undefined;
