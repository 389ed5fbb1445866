/**
 * Given / when / then specifications over the public API, after the Decider
 * pattern's tests: given the events so far, when one more arrives, then a
 * record matches, or the event conflicts, or it changes nothing. Failures are
 * `AssertionError`s from `node:assert`, so any test runner reports them.
 */
import { AssertionError } from 'node:assert';
import { ok, type Result } from 'neverthrow';
import { type Command, isCommand } from '../core/decider/command.js';
import { decodeObservation } from '../core/observations/decode-observation.js';
import { plural } from '../core/plural.js';
import { compareSignRequest } from '../core/projections/compare-sign-request.js';
import { loadSignRequest } from '../core/projections/load-sign-request.js';
import type { Reactor, ReactorDefinition } from '../core/reactors/reactor-types.js';
import {
  type Conflict,
  decodeEvent,
  decodeEventJson,
  fold,
  formatDecodeError,
  getParticipant,
  getSignRequest,
  getTemplate,
  initialState,
  type ProjectionState,
  reduce,
  type SignEvent,
} from '../index.js';
import { type Decided, whenCommand } from './decider-specification.js';
import { describeEvents, show } from './describe-events.js';
import { checkEffects, type Reaction, reactionTo, type WhenOptions } from './effects-check.js';
import type { EventInput, ExpectedConflict, StateChecks } from './expectations.js';
import { mismatchedMembers, pickNamed } from './partial-match.js';

export type {
  EventInput,
  ExpectedConflict,
  ExpectedParticipant,
  ExpectedSignRequest,
  ExpectedTemplate,
  StateChecks,
} from './expectations.js';

/** The events so far; {@link Given.when} adds the one under test. */
export interface Given extends StateChecks<Given> {
  /** The state the given events fold to. */
  readonly state: ProjectionState;
  /**
   * Decides a command of the service against the given state with `decide`:
   * `then(...events)` expects what it emits, `thenRejected(kind)` why not.
   */
  when(command: Command): Decided;
  /**
   * Applies `event` to the given state with `reduce`, at position n + 1 after
   * n given events, received at `options.receivedAt` (a bare line without).
   */
  when(event: EventInput, options?: WhenOptions): When;
  /**
   * Applies an observation record (see `observation`) to the given state, as
   * the projector does: `thenApplied` when it closed a difference,
   * `thenNoOp` when the state already agreed, `thenConflict` when refused.
   * `thenEffects` expects what `react` returned for each event the repair
   * stands for, one after another.
   */
  whenObserved(record: Readonly<Record<string, unknown>>, options?: WhenOptions): When;
}

/** The outcome of the event under test. */
export interface When extends StateChecks<When> {
  /** The state after the event (the given state when it conflicted). */
  readonly state: ProjectionState;
  /** What `reduce` returned. */
  readonly result: Result<ProjectionState, Conflict>;
  /** The event conflicted, with a conflict matching `expected` if given, and left the state as it was. */
  thenConflict(expected?: ExpectedConflict): When;
  /** The event applied without changing anything: `reduce` returned the very same state. */
  thenNoOp(): When;
  /** The event applied and changed the state. */
  thenApplied(): When;
  /**
   * `reactor.react` returned exactly `expected` (deep-equal) for the event
   * under test; `[]` when the event did not apply (react is not called then).
   */
  thenEffects(reactor: Reactor | ReactorDefinition, expected: readonly unknown[]): When;
}

const fail = (message: string, extra: { actual?: unknown; expected?: unknown } = {}): never => {
  throw new AssertionError({ message, ...extra, operator: 'signfold/testing' });
};

/** Decodes an input; an invalid one fails the specification, naming where it came from. */
const decodeInput = (input: EventInput, where: string): SignEvent => {
  const decoded = typeof input === 'string' ? decodeEventJson(input) : decodeEvent(input);
  if (decoded.isErr()) {
    return fail(`${where} is not a valid event: ${formatDecodeError(decoded.error)}`);
  }
  return decoded.value;
};

/** The state checks of one state, with the history that a failure message shows. */
const stateChecks = <Self>(
  state: ProjectionState,
  history: () => string,
  self: () => Self,
): StateChecks<Self> => {
  const check = (what: string, actual: object | undefined, expected: object): Self => {
    if (actual === undefined) fail(`${what} is not in the state\n${history()}`);
    const mismatched = mismatchedMembers(actual, expected);
    if (mismatched.length > 0) {
      fail(
        `${what} does not match: ${mismatched.join(', ')} ${plural(mismatched.length, 'differs', 'differ')}\n` +
          `expected (members compared): ${show(expected)}\n` +
          `actual record:               ${show(actual)}\n${history()}`,
        { actual: pickNamed(actual, expected), expected },
      );
    }
    return self();
  };
  return {
    thenTemplate: (id, expected) => check(`template ${id}`, getTemplate(state, id), expected),
    thenSignRequest: (id, expected) =>
      check(`sign request ${id}`, getSignRequest(state, id), expected),
    thenParticipant: (signRequest, id, expected) =>
      check(
        `participant ${id} of sign request ${signRequest}`,
        getParticipant(state, signRequest, id),
        expected,
      ),
    thenNoSignRequest: (id) => {
      const found = getSignRequest(state, id);
      if (found !== undefined) {
        fail(`sign request ${id} is in the state: ${show(found)}\n${history()}`);
      }
      return self();
    },
  };
};

/**
 * Starts a specification from the events so far (none for an empty state).
 * Every given event must apply: one that conflicts fails at once, since the
 * starting point of a specification should be a state the events really reach.
 *
 * @example
 * ```ts
 * import { events, given } from 'signfold/testing';
 *
 * given(events.signRequestSent(), events.participantSent())
 *   .when(events.participantSigned())
 *   .thenParticipant(1000, 5, { status: 'signed' })
 *   .thenSignRequest(1000, { status: 'sent' });
 * ```
 */
export const given = (...history: readonly EventInput[]): Given => {
  const past = history.map((input, index) => decodeInput(input, `given event ${index + 1}`));
  const { state, conflicts } = fold(initialState(), past);
  const first = conflicts[0];
  if (first !== undefined) {
    fail(
      `given event ${first.index + 1} (${first.eventType}) conflicts: ${first.message}\n` +
        describeEvents('given', past),
    );
  }
  const story = () => describeEvents('given', past);
  const spec: Given = {
    state,
    ...stateChecks(state, story, () => spec),
    when: ((input: Command | EventInput, options: WhenOptions = {}) =>
      isCommand(input)
        ? whenCommand(state, past, input, decodeInput, (after, history, self) =>
            stateChecks(after, history, self),
          )
        : whenEvent(
            state,
            past,
            decodeInput(input, 'the event under test'),
            options,
          )) as Given['when'],
    whenObserved: (record, options = {}) => whenObservation(state, past, record, options),
  };
  return spec;
};

/** What an observation record does to `before`, as the projector applies it. */
const observe = (
  before: ProjectionState,
  record: Readonly<Record<string, unknown>>,
): Result<ProjectionState, Conflict> => {
  const decoded = decodeObservation(record);
  if (decoded.isErr()) {
    return fail(`the observation under test is invalid: ${formatDecodeError(decoded.error)}`);
  }
  const { signRequest, companyId } = decoded.value;
  // One that closes no difference changes nothing the specification can see: a no-op.
  if (compareSignRequest(before, signRequest).length === 0) return ok(before);
  return loadSignRequest(before, signRequest, companyId === undefined ? {} : { companyId });
};

const whenObservation = (
  before: ProjectionState,
  past: readonly SignEvent[],
  record: Readonly<Record<string, unknown>>,
  options: WhenOptions,
): When => {
  const result = observe(before, record);
  const story = () => `${describeEvents('given', past)}\nwhen observed: ${show(record)}`;
  return outcomeChecks(before, result, story, (reactor) =>
    reactionTo(reactor, before, record, past.length + 1, options),
  );
};

const whenEvent = (
  before: ProjectionState,
  past: readonly SignEvent[],
  event: SignEvent,
  options: WhenOptions,
): When => {
  const result = reduce(before, event);
  const story = () =>
    `${describeEvents('given', past)}\n${describeEvents('when', [event]).replace('  1. ', '  ')}`;
  return outcomeChecks(before, result, story, (reactor) =>
    reactionTo(reactor, before, event, past.length + 1, options),
  );
};

/** The checks of a `When`, whatever was applied: an event or an observation record. */
const outcomeChecks = (
  before: ProjectionState,
  result: Result<ProjectionState, Conflict>,
  story: () => string,
  react: (reactor: Reactor) => Reaction | undefined,
): When => {
  const after = result.isOk() ? result.value : before;
  const outcome = (): string =>
    result.isErr()
      ? `conflicted: ${result.error.message}`
      : result.value === before
        ? 'changed nothing (a no-op)'
        : 'applied';
  const spec: When = {
    state: after,
    result,
    ...stateChecks(after, story, () => spec),
    thenConflict: (expected) => {
      if (result.isOk()) return fail(`expected a conflict, but the event ${outcome()}\n${story()}`);
      const conflict = result.error;
      const mismatched = expected === undefined ? [] : mismatchedMembers(conflict, expected);
      if (mismatched.length > 0) {
        fail(
          `the conflict does not match: ${mismatched.join(', ')} ${plural(mismatched.length, 'differs', 'differ')}\n` +
            `expected (members compared): ${show(expected)}\n` +
            `actual conflict:             ${show(conflict)}\n${story()}`,
          { actual: pickNamed(conflict, expected), expected },
        );
      }
      return spec;
    },
    thenNoOp: () => {
      if (result.isErr() || result.value !== before) {
        fail(`expected a no-op, but the event ${outcome()}\n${story()}`);
      }
      return spec;
    },
    thenEffects: (reactor, expected) => {
      checkEffects(reactor, react, expected, story);
      return spec;
    },
    thenApplied: () => {
      if (result.isErr() || result.value === before) {
        fail(`expected the event to apply, but it ${outcome()}\n${story()}`);
      }
      return spec;
    },
  };
  return spec;
};
