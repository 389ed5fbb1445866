/**
 * One attempt at an effect, turned into a value: `execute` is user code, and
 * a throw, a rejection or a missing `execute` must never stop a runner.
 */
import { visibleText } from '../visible-text.js';
import type { Effect, EffectContext, Reactor } from './reactor-types.js';

/** The outcome of one attempt. `error` is printable and at most `MAX_ERROR_LENGTH` long. */
export type AttemptOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** Errors are stored and printed: a bound keeps a huge message out of the journal. */
export const MAX_ERROR_LENGTH = 1000;

/**
 * The message of a thrown value, made printable (control characters escaped
 * by the visible-text rule) and cut to `MAX_ERROR_LENGTH` characters.
 */
export const errorMessageOf = (thrown: unknown): string => {
  let text: string;
  try {
    text = thrown instanceof Error ? thrown.message : String(thrown);
  } catch {
    text = 'a value that cannot be shown';
  }
  return visibleText(text).slice(0, MAX_ERROR_LENGTH);
};

/**
 * Runs `reactor.execute(effect, context)` once. Never throws or rejects: a
 * synchronous throw, a rejection, or a reactor without `execute` is
 * `{ ok: false, error }`.
 */
export const attemptEffect = async (
  reactor: Reactor,
  effect: Effect,
  context: EffectContext,
): Promise<AttemptOutcome> => {
  const execute = reactor.execute;
  if (typeof execute !== 'function') {
    return { ok: false, error: `reactor "${reactor.name}" has no execute` };
  }
  try {
    await execute(effect, context);
    return { ok: true };
  } catch (thrown) {
    return { ok: false, error: errorMessageOf(thrown) };
  }
};
