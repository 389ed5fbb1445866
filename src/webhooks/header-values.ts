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
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) {
      for (const one of value) if (typeof one === 'string') values.push(one);
    }
  }
  return values;
};
