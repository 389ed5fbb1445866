/**
 * Secrets bound to companies: a delivery is stored only when a key that
 * verified it may deliver the company its body names. The company is read
 * as the decoder reads it (`companyId`, a safe integer, of a JSON object),
 * from the very value that is stored and projected, so the check and the
 * projection never disagree on whose event it is.
 */
import { err, ok, type Result } from 'neverthrow';
import { isWireId } from '../core/events/wire-id.js';

/** The `companyId` of a parsed body, or `undefined` when it has none an event could have. */
export const companyOfBody = (value: unknown): number | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (!Object.hasOwn(value, 'companyId')) return undefined;
  const id: unknown = (value as { companyId: unknown }).companyId;
  return isWireId(id) ? id + 0 : undefined;
};

/**
 * `ok` when some verifying key allows the body's company: a key bound to no
 * company allows any (even a body without one); a bound key allows the
 * companies it lists. Otherwise why (answered 403).
 */
export const companyAllowed = (
  bindings: readonly (ReadonlySet<number> | undefined)[],
  value: unknown,
): Result<void, string> => {
  if (bindings.some((companies) => companies === undefined)) return ok(undefined);
  const company = companyOfBody(value);
  if (company === undefined) {
    return err(
      'secret is bound to companies, and the body names no companyId (a JSON object with a safe-integer companyId)',
    );
  }
  return bindings.some((companies) => companies?.has(company) === true)
    ? ok(undefined)
    : err(`secret not allowed for company ${company}`);
};
