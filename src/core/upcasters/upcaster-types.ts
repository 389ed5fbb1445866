/**
 * What an upcaster applies to: a wire `type`, or a test of the whole wire JSON.
 * Only records that are JSON objects are ever tested (nothing else can be an event).
 */
export type UpcastFrom = string | ((wire: Readonly<Record<string, unknown>>) => boolean);

/**
 * What `to` may return: the wire JSON of one event, several (applied in
 * order at the record's position), or `[]` for none (the record is a no-op).
 */
export type UpcastOutput = unknown;

/** What {@link defineUpcaster} takes. */
export interface UpcasterDefinition {
  /** Named in audit trails and quarantine messages: `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`. */
  readonly name: string;
  /** The wire `type` it rewrites (any string: also types this version does not know), or a predicate. */
  readonly from: UpcastFrom;
  /**
   * Rewrites one wire record it applies to. Must be pure and must not
   * change its argument: return a new value. A throw, or anything that does
   * not decode, quarantines the record with a message naming the upcaster.
   */
  readonly to: (wire: Readonly<Record<string, unknown>>) => UpcastOutput;
}

/** A validated upcaster, as {@link defineUpcaster} returns it. */
export interface Upcaster {
  /** As in {@link UpcasterDefinition.name}. */
  readonly name: string;
  /** As in {@link UpcasterDefinition.from}. */
  readonly from: UpcastFrom;
  /** As in {@link UpcasterDefinition.to}. */
  readonly to: (wire: Readonly<Record<string, unknown>>) => UpcastOutput;
}
