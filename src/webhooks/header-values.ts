/**
 * Reads a header from whatever a framework hands over, by a case-insensitive
 * name: a plain object (node:http lower-cases names; others may not) or a
 * Fetch-style `Headers`.
 */
import type { WebhookHeaders } from './webhook-types.js';

const hasGet = (headers: WebhookHeaders): headers is { get(name: string): string | null } =>
  typeof (headers as { get?: unknown }).get === 'function';

/** Every value of header `name` (lower-case), in order; `[]` when absent. */
export const headerValues = (headers: WebhookHeaders, name: string): readonly string[] => {
  if (hasGet(headers)) {
    const value = headers.get(name);
    return typeof value === 'string' ? [value] : [];
  }
  const values: string[] = [];
  // for…in rather than Object.entries: this runs several times per delivery, and the pairs
  // were garbage; the length check skips lower-casing the names that cannot match.
  for (const key in headers) {
    if (key.length !== name.length || !Object.hasOwn(headers, key)) continue;
    if (key !== name && key.toLowerCase() !== name) continue;
    const value = (headers as Readonly<Record<string, unknown>>)[key];
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) {
      for (const one of value) if (typeof one === 'string') values.push(one);
    }
  }
  return values;
};
