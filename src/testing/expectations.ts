/**
 * What a specification expects and of what: the inputs it takes and the
 * partial expectations of records, conflicts and states that its checks compare.
 */
import type {
  Conflict,
  ParticipantView,
  SignEvent,
  SignRequestView,
  TemplateView,
} from '../index.js';

/** An event as a test may give it: built or decoded, a wire object, or wire JSON text. */
export type EventInput = SignEvent | string | Readonly<Record<string, unknown>>;

/** A member's expected value: plain numbers for branded ids, the same type otherwise. */
type Plain<T> = T extends number ? number : T;
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type ValueIn<T, K extends PropertyKey> = T extends unknown
  ? K extends keyof T
    ? T[K]
    : never
  : never;

/** Members a template is expected to have; the others are not compared. */
export type ExpectedTemplate = { readonly [K in keyof TemplateView]?: Plain<TemplateView[K]> };
/** Members a sign request is expected to have; the others are not compared. */
export type ExpectedSignRequest = {
  readonly [K in keyof SignRequestView]?: Plain<SignRequestView[K]>;
};
/** Members a participant is expected to have; the others are not compared. */
export type ExpectedParticipant = {
  readonly [K in keyof ParticipantView]?: Plain<ParticipantView[K]>;
};
/** Members a conflict is expected to have (`kind`, `entity`, `id`…); the others are not compared. */
export type ExpectedConflict = {
  readonly [K in KeysOfUnion<Conflict>]?: Plain<ValueIn<Conflict, K>>;
};

/** Checks on the state; each returns the specification, so checks chain. */
export interface StateChecks<Self> {
  /** The state holds template `id`, and it matches `expected`. */
  thenTemplate(id: number, expected: ExpectedTemplate): Self;
  /** The state holds sign request `id`, and it matches `expected`. */
  thenSignRequest(id: number, expected: ExpectedSignRequest): Self;
  /** The state holds participant `id` of sign request `signRequest`, and it matches `expected`. */
  thenParticipant(signRequest: number, id: number, expected: ExpectedParticipant): Self;
  /** The state holds no sign request `id`. */
  thenNoSignRequest(id: number): Self;
}
