import type { SignEvent } from '../events/sign-event.js';
import type { Conflict, ConflictKind } from '../projections/conflict.js';
import type { Command } from './command.js';

/** Why the service refuses a command: the rule that refuses it names the kind. */
export type Rejection =
  /**
   * The fold's status rules refuse an event the command would emit (see
   * docs/status-rules.md): the conflict says which record and which rule.
   */
  | {
      readonly kind: ConflictKind;
      readonly command: Command['type'];
      readonly message: string;
      readonly conflict: Conflict;
      /** The events the command would emit; folding them gives `conflict`. */
      readonly events: readonly SignEvent[];
    }
  /** The command would change nothing: the fold would take its first event as a no-op. */
  | {
      readonly kind: 'unchanged';
      readonly command: Command['type'];
      readonly message: string;
      /** The events the command would emit. */
      readonly events: readonly SignEvent[];
    }
  /** A participant is sent the request before those `waitingFor` have signed. */
  | {
      readonly kind: 'signing-order';
      readonly command: Command['type'];
      readonly message: string;
      readonly waitingFor: readonly number[];
    }
  | {
      readonly kind: /** The template, request or participant is not one the service holds. */
        | 'unknown-template'
        | 'unknown-sign-request'
        | 'unknown-participant'
        /** A template or request with that id, or a participant with that id in the request, exists. */
        | 'already-exists'
        /** A request is sent from a template that is inactive. */
        | 'template-not-active'
        /** The command's own values are not valid event members (say, a negative id). */
        | 'invalid-command';
      readonly command: Command['type'];
      readonly message: string;
    };

/** The kinds of rejection. */
export type RejectionKind = Rejection['kind'];

/** A rejection of a kind that carries nothing but its message. */
export const rejection = (
  kind: Exclude<RejectionKind, ConflictKind | 'signing-order' | 'unchanged'>,
  command: Command['type'],
  message: string,
): Rejection => ({ kind, command, message: `${command} refused: ${message}` });

/** The rejection for an event the fold's rules refuse. */
export const refusedBy = (
  conflict: Conflict,
  command: Command['type'],
  events: readonly SignEvent[],
): Rejection => ({
  kind: conflict.kind,
  command,
  message: `${command} refused: ${conflict.message}`,
  conflict,
  events,
});
