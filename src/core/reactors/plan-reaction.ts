/**
 * Turning what `react` returned into steps a store applies in order. All
 * validation of user output happens here, once, so the file engine, the
 * PostgreSQL adapter and the test kit agree on what is enqueued and what is
 * parked as invalid; nothing `react` does (throw, return junk) escapes.
 */
import { errorMessageOf } from './attempt-effect.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { isPlainJson } from './plain-json.js';
import type { Change, Effect, JsonValue, Reactor, SqlStatement } from './reactor-types.js';
import { receivedTimeOf } from './received-time.js';

/** One step of a plan; a store applies them in order (see `ReactorEffects`). */
export type PlanStep =
  /** Cancels the scheduled timers of `key` that were not due by the plan's `eventTime`. */
  | { readonly kind: 'cancel'; readonly key: string }
  /** The same, for every key that starts with `prefix` (which ends with `:` or `/`). */
  | { readonly kind: 'cancel-prefix'; readonly prefix: string }
  | {
      readonly kind: 'enqueue';
      readonly index: number;
      readonly idempotencyKey: string;
      /** Exactly as `react` returned it. */
      readonly effect: Effect;
      readonly key: string | undefined;
      /** ms since the epoch; `undefined` = immediate. */
      readonly dueAt: number | undefined;
      /** Set when the reactor has SQL for `effect.type`: PostgreSQL runs it in the transaction. */
      readonly sql: SqlStatement | undefined;
    }
  | {
      readonly kind: 'park';
      readonly index: number;
      readonly idempotencyKey: string;
      /** The item as returned; `null` when react threw or the item is not plain JSON. */
      readonly effect: JsonValue | null;
      readonly error: string;
    };

/** What one applied event means for one reactor. */
export interface ReactionPlan {
  readonly reactor: string;
  readonly position: number;
  /**
   * `Date.parse(change.receivedAt)`; `undefined` for a bare line. A cancel
   * in this plan reaches only the timers due after it.
   */
  readonly eventTime: number | undefined;
  readonly steps: readonly PlanStep[];
}

const park = (
  reactor: Reactor,
  position: number,
  index: number,
  effect: JsonValue | null,
  error: string,
): PlanStep => ({
  kind: 'park',
  index,
  idempotencyKey: idempotencyKeyOf(reactor.name, position, index),
  effect,
  error,
});

const BARE_LINE = 'a timed effect on a bare line (the event has no receivedAt)';

const dueAtOf = (
  item: Effect,
  receivedAt: number | undefined,
): { ok: true; dueAt: number | undefined } | { ok: false; error: string } => {
  const hasAfter = item.after !== undefined;
  const hasAt = item.at !== undefined;
  if (!hasAfter && !hasAt) {
    return { ok: true, dueAt: undefined };
  }
  if (hasAfter && hasAt) {
    return { ok: false, error: 'the effect has both after and at' };
  }
  if (
    hasAfter &&
    (typeof item.after !== 'number' || !Number.isFinite(item.after) || item.after < 0)
  ) {
    return { ok: false, error: 'after must be a finite number of milliseconds ≥ 0' };
  }
  const at = hasAt && typeof item.at === 'string' ? Date.parse(item.at) : Number.NaN;
  if (hasAt && !Number.isFinite(at)) {
    return { ok: false, error: 'at must be an ISO 8601 time' };
  }
  // An absolute `at` could do without the event's time, but a bare line comes from a log
  // written without times, where a timer is a guess either way: one rule for both.
  if (receivedAt === undefined) {
    return { ok: false, error: BARE_LINE };
  }
  return { ok: true, dueAt: hasAt ? at : receivedAt + (item.after as number) };
};

/** Whether `prefix` may be cancelled by: it ends a segment, so `r:1/` never reaches `r:10/`. */
export const isKeyPrefix = (prefix: unknown): prefix is string =>
  typeof prefix === 'string' && (prefix.endsWith(':') || prefix.endsWith('/'));

/** The step of a valid cancel: a `key`, or a `keyPrefix` (one of them). */
const cancelStep = (item: JsonValue, effect: Effect): PlanStep | undefined => {
  const { keyPrefix } = item as { keyPrefix?: unknown };
  if (effect.key !== undefined)
    return keyPrefix === undefined ? { kind: 'cancel', key: effect.key } : undefined;
  return isKeyPrefix(keyPrefix) ? { kind: 'cancel-prefix', prefix: keyPrefix } : undefined;
};

/** Why a cancel has no step. */
const cancelError = (effect: Effect): string => {
  if (effect.key !== undefined) return 'a cancel with both key and keyPrefix';
  return effect.keyPrefix === undefined
    ? 'a cancel without a key or a keyPrefix'
    : 'keyPrefix must be a string that ends with ":" or "/"';
};

const sqlOf = (
  reactor: Reactor,
  item: Effect,
): { ok: true; sql: SqlStatement | undefined } | { ok: false; error: string } => {
  const statementOf =
    reactor.sql !== undefined && Object.hasOwn(reactor.sql, item.type)
      ? reactor.sql[item.type]
      : undefined;
  if (statementOf === undefined) {
    return { ok: true, sql: undefined };
  }
  try {
    const sql = statementOf(item);
    if (
      typeof sql !== 'object' ||
      sql === null ||
      typeof sql.text !== 'string' ||
      (sql.values !== undefined && (!Array.isArray(sql.values) || !isPlainJson(sql.values)))
    ) {
      return {
        ok: false,
        error: `sql.${item.type} did not return { text, values? } of plain JSON`,
      };
    }
    return {
      ok: true,
      sql: sql.values === undefined ? { text: sql.text } : { text: sql.text, values: sql.values },
    };
  } catch (thrown) {
    return { ok: false, error: `sql.${item.type} threw: ${errorMessageOf(thrown)}` };
  }
};

const planItem = (
  reactor: Reactor,
  position: number,
  receivedAt: number | undefined,
  item: unknown,
  index: number,
): readonly PlanStep[] => {
  if (!isPlainJson(item)) {
    return [park(reactor, position, index, null, 'the effect is not plain JSON')];
  }
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return [park(reactor, position, index, item, 'the effect is not an object')];
  }
  const effect = item as Effect;
  if (typeof effect.type !== 'string') {
    return [park(reactor, position, index, item, 'the effect has no string type')];
  }
  if (effect.key !== undefined && typeof effect.key !== 'string') {
    return [park(reactor, position, index, item, 'key must be a string')];
  }
  if (effect.type === 'cancel') {
    return [cancelStep(item, effect) ?? park(reactor, position, index, item, cancelError(effect))];
  }
  const due = dueAtOf(effect, receivedAt);
  if (!due.ok) {
    return [park(reactor, position, index, item, due.error)];
  }
  const sql = sqlOf(reactor, effect);
  if (!sql.ok) {
    return [park(reactor, position, index, item, sql.error)];
  }
  if (sql.sql !== undefined && due.dueAt !== undefined) {
    return [park(reactor, position, index, item, 'an SQL effect cannot be timed')];
  }
  const enqueue: PlanStep = {
    kind: 'enqueue',
    index,
    idempotencyKey: idempotencyKeyOf(reactor.name, position, index),
    effect,
    key: effect.key,
    dueAt: due.dueAt,
    sql: sql.sql,
  };
  // Replacement is a cancel then an insert, so a store needs no special case.
  return effect.key === undefined ? [enqueue] : [{ kind: 'cancel', key: effect.key }, enqueue];
};

/**
 * The plan of `reactor` for one applied event: calls `react` (in a
 * try/catch), validates each returned item and never throws. A throw parks
 * one entry (index 0, effect `null`); an invalid item parks that item with
 * the reason; a keyed enqueue is preceded by a cancel of its key.
 */
export const planReaction = (reactor: Reactor, change: Change): ReactionPlan => {
  const steps = stepsOf(reactor, change);
  const eventTime = receivedTimeOf(change.receivedAt);
  return { reactor: reactor.name, position: change.position, eventTime, steps };
};

/** What {@link reactInto} needs of a book (a `ReactorEffects` has it). */
export interface PlanTarget {
  applyPlan(plan: ReactionPlan): void;
}

/**
 * `target.applyPlan(planReaction(reactor, change))`, without building a plan
 * when `react` returns nothing (most events): a reaction without steps
 * changes nothing, since events release no timer (a caught-up runner does).
 */
export const reactInto = (target: PlanTarget, reactor: Reactor, change: Change): void => {
  const steps = stepsOf(reactor, change);
  if (steps.length > 0) {
    const eventTime = receivedTimeOf(change.receivedAt);
    target.applyPlan({ reactor: reactor.name, position: change.position, eventTime, steps });
  }
};

const stepsOf = (reactor: Reactor, change: Change): readonly PlanStep[] => {
  // The events of one repair, or of one record upcasters made several of, share a position.
  const place = change.observation ?? change.upcast;
  let items: unknown;
  try {
    items = reactor.react(change);
  } catch (thrown) {
    const index = place?.index ?? 0;
    return [park(reactor, change.position, index, null, `react threw: ${errorMessageOf(thrown)}`)];
  }
  if (!Array.isArray(items)) {
    const index = place?.index ?? 0;
    return [park(reactor, change.position, index, null, 'react did not return an array')];
  }
  // Most events call for nothing: no array is built for them.
  if (items.length === 0) return NO_STEPS;
  // Read only here: an event that calls for nothing needs no time (receivedTimeOf keeps its last answer).
  const eventTime = receivedTimeOf(change.receivedAt);
  const steps: PlanStep[] = [];
  // Events sharing a position interleave their items, so each has a key of its own.
  const stride = place?.count ?? 1;
  const first = place?.index ?? 0;
  for (let i = 0; i < items.length; i += 1) {
    steps.push(...planItem(reactor, change.position, eventTime, items[i], i * stride + first));
  }
  return steps;
};

const NO_STEPS: readonly PlanStep[] = Object.freeze([]);
