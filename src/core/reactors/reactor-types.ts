/**
 * The contract between a reactor and whatever runs it (the file engine, a
 * PostgreSQL worker, the test kit). Types only: the pure planning lives in
 * `plan-reaction.ts`, the retry rule in `retry-policy.ts`.
 */
import type { SignEvent } from '../events/sign-event.js';
import type { ProjectionState } from '../projections/projection-state.js';
import type { ParticipantView, SignRequestView, TemplateView } from '../projections/records.js';

/** A JSON value, as an effect must be made of (it is stored and shown as JSON). */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [member: string]: JsonValue };

/** The views one event touched, as they were before or after it. */
export interface TouchedViews {
  readonly signRequest?: SignRequestView;
  readonly participant?: ParticipantView;
  readonly template?: TemplateView;
}

/** One applied event, as `react` sees it. */
export interface Change {
  readonly event: SignEvent;
  /** The event's log position (unique per log; the reaction's identity). */
  readonly position: number;
  /** When the event was received (ISO 8601); `undefined` for a bare line. */
  readonly receivedAt: string | undefined;
  /** The delivery id it was stored under, if any. */
  readonly deliveryId: string | undefined;
  readonly before: TouchedViews;
  readonly after: TouchedViews;
  /**
   * The projection after the event, read-only, as far as the event goes:
   * for a sign-request or participant event, its sign request and every
   * participant of it (not only the one the event touched), in id order; for a template
   * event, the template. Nothing else: every engine has that much at hand
   * (a PostgreSQL batch loads no other request), so a reactor reacts the
   * same on each. Read it with the core's queries (`getSignRequest`,
   * `listParticipants`, `participantsAwaitingAction`, …). Deeply frozen;
   * like the views, made when first read, and only while `react` runs.
   */
  readonly state: ProjectionState;
  /**
   * Set when the event was not delivered but stands for a transition an
   * observation record made (see docs/reactors.md#repairs): the
   * event is the one the lost delivery would have carried, rebuilt from the
   * projection. `undefined` for a delivered event.
   */
  readonly observation?: ObservedEvent;
  /**
   * Set when upcasters made the event from the stored record (see
   * docs/engine.md#upcasters); `undefined` for an event applied as stored.
   */
  readonly upcast?: Upcast | undefined;
}

/** What {@link Change.upcast} says of an event upcasters made. */
export interface Upcast {
  /** The upcasters that made it, in the order they ran. */
  readonly by: readonly string[];
  /**
   * This event's place among the `count` events its record became (0-based).
   * They share the record's position: as for an observation, item `i` of event
   * `index` has index `i × count + index`, so their effects' keys differ.
   */
  readonly index: number;
  readonly count: number;
}

/** What {@link Change.observation} says of an event an observation record stands for. */
export interface ObservedEvent {
  /** When the service's representation was fetched (ISO 8601). */
  readonly fetchedAt: string;
  /** The differences the observation closed, as `compareSignRequest` words them. */
  readonly differences: readonly string[];
  /**
   * This event's place among the `count` events the observation stands for
   * (0-based). Each is a change of its own at the observation's position;
   * their effects get distinct idempotency keys (item `i` of event `index`
   * has index `i × count + index`).
   */
  readonly index: number;
  readonly count: number;
}

/**
 * An effect as `react` returns it: plain JSON with a `type`. `key` makes a
 * later effect with the same key replace it while it is pending (a timer not
 * yet due in event time); `after` (ms after the event's `receivedAt`) or `at`
 * (an ISO time) make it a timer. At most one of `after` and `at`.
 */
export interface Effect {
  readonly type: string;
  readonly key?: string;
  readonly after?: number;
  readonly at?: string;
  readonly [member: string]: JsonValue | undefined;
}

/**
 * Cancels the scheduled timers of the same reactor with this `key`, or with
 * a key that starts with `keyPrefix` (one of the two). A prefix ends with
 * `:` or `/`, so that `remind:1/` reaches `remind:1/2` but not `remind:10/2`.
 * Either reaches only timers due after the event's `receivedAt`
 * (docs/reactors.md, "Timers and keys").
 */
export type CancelEffect =
  | { readonly type: 'cancel'; readonly key: string; readonly keyPrefix?: undefined }
  | { readonly type: 'cancel'; readonly keyPrefix: string; readonly key?: undefined };

/**
 * The least of an abort signal these types rely on, for a program compiled
 * without the DOM or Node libraries (an edge function), where `AbortSignal`
 * is not declared.
 */
export interface MinimalAbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/**
 * The runtime's `AbortSignal` where the program's libraries declare it (the
 * DOM library, `@types/node`), so that it can be given to `fetch` under
 * `--strict`; else {@link MinimalAbortSignal}. Named through `globalThis`, so
 * signfold's declarations need neither library: the type is settled in the
 * program that uses them. At run time signfold always passes a real one.
 */
export type RuntimeAbortSignal = typeof globalThis extends {
  AbortSignal: { prototype: infer S };
}
  ? S
  : MinimalAbortSignal;

/** The signal `execute` gets: a {@link RuntimeAbortSignal} that fires at shutdown. */
export type ShutdownSignal = RuntimeAbortSignal;

/** What `execute` gets besides the effect. */
export interface EffectContext {
  /**
   * The same string across retries, restarts and workers (printable ASCII:
   * it may travel in an HTTP header): `<reactor name>:<position>:<index>`.
   */
  readonly idempotencyKey: string;
  /** Counted from 1. */
  readonly attempt: number;
  /** Fires at shutdown: an `execute` that honours it lets the process stop sooner. */
  readonly signal: ShutdownSignal;
}

/** Bounded retries with exponential backoff and jitter (see `retryDelayBounds`). */
export interface RetryPolicy {
  /** Attempts before the effect is parked (≥ 1). */
  readonly maxAttempts: number;
  /** The delay before the second attempt, before jitter (ms). */
  readonly baseDelayMs: number;
  /** No delay exceeds this (ms). */
  readonly maxDelayMs: number;
}

/** A statement run inside the PostgreSQL projection transaction (exactly once). */
export interface SqlStatement {
  readonly text: string;
  readonly values?: readonly JsonValue[];
}

/** SQL effects by effect type: each turns an effect into the statement to run. */
export interface SqlEffects {
  /** The statement for an effect of this type. */
  readonly [effectType: string]: (effect: Effect) => SqlStatement;
}

/** What `defineReactor` takes. */
export interface ReactorDefinition {
  /** Unique among the reactors of one process; `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`. */
  readonly name: string;
  /** Pure and synchronous: the effects of one applied event. */
  readonly react: (change: Change) => readonly (Effect | CancelEffect)[];
  /** Async and impure: performs one effect. A throw or a rejection is a failure. */
  readonly execute?:
    | ((effect: Effect, context: EffectContext) => Promise<unknown> | unknown)
    | undefined;
  /** Partial: missing members take the documented defaults. */
  readonly retry?: Partial<RetryPolicy> | undefined;
  /**
   * Effects performed as SQL in the PostgreSQL projection transaction,
   * by effect type: exactly once, never timed. The file engine refuses a
   * reactor that has any.
   */
  readonly sql?: SqlEffects | undefined;
}

/** A validated reactor (see `defineReactor`). */
export interface Reactor {
  /** The checked name (part of every idempotency key). */
  readonly name: string;
  /** The definition's `react`. */
  readonly react: ReactorDefinition['react'];
  /** The definition's `execute`; `undefined` when every effect is SQL. */
  readonly execute: ReactorDefinition['execute'];
  /** The retry policy, defaults filled in. */
  readonly retry: RetryPolicy;
  /** The definition's SQL effects, if any. */
  readonly sql: SqlEffects | undefined;
}
