/**
 * Given / when / then for the decider, after fmodel's and Emmett's decider
 * specifications: given the events so far, when a command is decided, then
 * it emits exactly these events, or it is rejected by this rule. The result
 * also holds the state its events fold to, so the record checks of
 * {@link StateChecks} chain after it.
 */
import { AssertionError } from 'node:assert';
import { isDeepStrictEqual } from 'node:util';
import type { Result } from 'neverthrow';
import type { Command } from '../core/decider/command.js';
import { decide } from '../core/decider/decide.js';
import type { Rejection } from '../core/decider/rejection.js';
import { type ProjectionState, reduce, type SignEvent } from '../index.js';
import { describeEvents, show } from './describe-events.js';
import type { EventInput, ExpectedConflict, StateChecks } from './expectations.js';
import { mismatchedMembers } from './partial-match.js';

/** Members a rejection is expected to have besides its kind; the others are not compared. */
export interface ExpectedRejection {
  readonly command?: Command['type'];
  readonly message?: string;
  /** Of a `signing-order` rejection. */
  readonly waitingFor?: readonly number[];
  /** Of a rejection by the fold's rules. */
  readonly conflict?: ExpectedConflict;
}

/** The decision on the command under test. */
export interface Decided extends StateChecks<Decided> {
  /** What `decide` returned. */
  readonly result: Result<readonly SignEvent[], Rejection>;
  /** The state the decided events fold to (the given state when the command was rejected). */
  readonly state: ProjectionState;
  /**
   * The command emitted exactly `expected`, in order (each decoded like a
   * given event, so built events, wire objects and wire text all compare).
   * Awaiting a specification calls this with functions: it then resolves.
   */
  then(...expected: readonly EventInput[]): Decided;
  /** The command was rejected, by the rule `kind`, with a rejection matching `expected` if given. */
  thenRejected(kind: Rejection['kind'], expected?: ExpectedRejection): Decided;
}

const fail = (message: string): never => {
  throw new AssertionError({ message, operator: 'signfold/testing' });
};

/** Decides `command` against the given state; `checks` gives the record checks of a state. */
export const whenCommand = (
  before: ProjectionState,
  past: readonly SignEvent[],
  command: Command,
  decodeInput: (input: EventInput, where: string) => SignEvent,
  checks: (
    state: ProjectionState,
    story: () => string,
    self: () => Decided,
  ) => StateChecks<Decided>,
): Decided => {
  const result = decide(command, before);
  let after = before;
  if (result.isOk()) {
    for (const event of result.value) {
      const next = reduce(after, event);
      // The decider judges its events with the fold's rules: a conflict here is a decider bug.
      if (next.isErr()) fail(`the decided ${event.type} conflicts: ${next.error.message}`);
      else after = next.value;
    }
  }
  const story = (): string =>
    `${describeEvents('given', past)}\nwhen command: ${show(command)}\n${
      result.isOk() ? describeEvents('decided', result.value) : `rejected: ${result.error.message}`
    }`;
  const spec: Decided = {
    result,
    state: after,
    ...checks(after, story, () => spec),
    // biome-ignore lint/suspicious/noThenProperty: the decider specification's word (given/when/then).
    then: (...expected) => {
      const [first, second] = expected as readonly unknown[];
      if (typeof first === 'function') {
        // `await spec` (or returning it from an async test) calls then(resolve, reject).
        (first as (value: undefined) => void)(undefined);
        return spec;
      }
      if (typeof second === 'function') return spec;
      if (result.isErr()) {
        return fail(`expected events, but the command was rejected\n${story()}`);
      }
      const wanted = expected.map((input, index) =>
        decodeInput(input, `expected event ${index + 1}`),
      );
      if (!isDeepStrictEqual([...result.value], wanted)) {
        fail(`the command emitted other events\n${describeEvents('expected', wanted)}\n${story()}`);
      }
      return spec;
    },
    thenRejected: (kind, expected = {}) => {
      if (result.isOk()) {
        return fail(`expected a rejection (${kind}), but the command was decided\n${story()}`);
      }
      const mismatched = mismatchedMembers(result.error, { kind, ...expected });
      if (mismatched.length > 0) {
        fail(
          `the rejection does not match: ${mismatched.join(', ')}\n` +
            `expected (members compared): ${show({ kind, ...expected })}\n` +
            `actual rejection:            ${show(result.error)}\n${story()}`,
        );
      }
      return spec;
    },
  };
  return spec;
};
