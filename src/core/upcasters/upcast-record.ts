/**
 * Applying upcasters to one wire record, before it is decoded. Pure and
 * never throws: whatever an upcaster does wrong (its `from` or `to` throws,
 * `to` returns nothing) is an `err` naming it, which the projector turns
 * into a quarantined record.
 */
import { err, ok, type Result } from 'neverthrow';
import { visibleText } from '../visible-text.js';
import type { Upcaster } from './upcaster-types.js';

/** One value a record became, with the upcasters that made it, in the order they ran. */
export interface UpcastValue {
  readonly value: unknown;
  readonly by: readonly string[];
}

/** Why a record could not be upcast: the upcaster that failed and how. */
export interface UpcastFailure {
  readonly upcaster: string;
  readonly message: string;
}

/** Nothing applied: the common case costs no allocation. */
const UNCHANGED: Result<undefined, UpcastFailure> = ok(undefined);

/** What a throw said, made visible: an upcaster's message may carry the record's data, bound for a terminal. */
const messageOf = (thrown: unknown): string => {
  try {
    return visibleText(thrown instanceof Error ? thrown.message : String(thrown));
  } catch {
    return 'an unprintable value was thrown';
  }
};

const failure = (upcaster: Upcaster, message: string): Result<never, UpcastFailure> =>
  err({ upcaster: upcaster.name, message: `upcaster "${upcaster.name}" ${message}` });

/**
 * Whether `upcaster` applies to `value`. Only a JSON object can be an event, and only one is shown
 * to an upcaster: a record that is an array would be ambiguous, as `to` returns arrays for several
 * events (an identity upcaster would read `[]` as "drop"). Reading may throw (a hostile Proxy), as
 * may a predicate.
 */
const applies = (upcaster: Upcaster, value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { from } = upcaster;
  if (typeof from === 'string') return (value as { type?: unknown }).type === from;
  return from(value as Readonly<Record<string, unknown>>) === true;
};

/** Runs one upcaster on one value: the values it became, appended to `into`. */
const runOne = (
  upcaster: Upcaster,
  item: UpcastValue,
  into: UpcastValue[],
): Result<true, UpcastFailure> => {
  let matched: boolean;
  try {
    matched = applies(upcaster, item.value);
  } catch (thrown) {
    return failure(upcaster, `from threw: ${messageOf(thrown)}`);
  }
  if (!matched) {
    into.push(item);
    return ok(true);
  }
  let output: unknown;
  try {
    output = upcaster.to(item.value as Readonly<Record<string, unknown>>);
  } catch (thrown) {
    return failure(upcaster, `threw: ${messageOf(thrown)}`);
  }
  if (output === undefined || output === null) {
    return failure(upcaster, 'returned nothing (return [] for no event)');
  }
  const by = [...item.by, upcaster.name];
  if (Array.isArray(output)) {
    for (const value of output) into.push({ value, by });
  } else {
    into.push({ value: output, by });
  }
  return ok(true);
};

/**
 * Applies `upcasters` in order to one wire record: each sees what the ones
 * before it made (every value, when one made several). `ok(undefined)` when
 * none applied; otherwise the values it became, in order (none: drop it),
 * each with the names of the upcasters that made it.
 */
export const upcastRecord = (
  upcasters: readonly Upcaster[],
  wire: unknown,
): Result<readonly UpcastValue[] | undefined, UpcastFailure> => {
  // One value until an upcaster returns an array: most records, and no list to build for them.
  let value = wire;
  let by: string[] | undefined;
  for (let index = 0; index < upcasters.length; index += 1) {
    const upcaster = upcasters[index] as Upcaster;
    let matched: boolean;
    try {
      matched = applies(upcaster, value);
    } catch (thrown) {
      return failure(upcaster, `from threw: ${messageOf(thrown)}`);
    }
    if (!matched) continue;
    let output: unknown;
    try {
      output = upcaster.to(value as Readonly<Record<string, unknown>>);
    } catch (thrown) {
      return failure(upcaster, `threw: ${messageOf(thrown)}`);
    }
    if (output === undefined || output === null) {
      return failure(upcaster, 'returned nothing (return [] for no event)');
    }
    by = by === undefined ? [upcaster.name] : [...by, upcaster.name];
    if (Array.isArray(output)) {
      const made = by;
      const items = output.map((item: unknown): UpcastValue => ({ value: item, by: made }));
      return runList(upcasters, index + 1, items);
    }
    value = output;
  }
  return by === undefined ? UNCHANGED : ok([{ value, by }]);
};

/** The upcasters from `start` on, over every value of `items` (once one returned an array). */
const runList = (
  upcasters: readonly Upcaster[],
  start: number,
  items: UpcastValue[],
): Result<readonly UpcastValue[], UpcastFailure> => {
  let current = items;
  for (let index = start; index < upcasters.length; index += 1) {
    const next: UpcastValue[] = [];
    for (const item of current) {
      const ran = runOne(upcasters[index] as Upcaster, item, next);
      if (ran.isErr()) return err(ran.error);
    }
    current = next;
  }
  return ok(current);
};
