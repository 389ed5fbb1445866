/**
 * The columns stored beside each event so workers and applications can
 * select events cheaply (by type, company, template, sign request). Taken
 * from the raw value without decoding it: a member that is not where the
 * service puts it, or not a safe integer, is stored as NULL. The body
 * itself is always stored whole.
 */

/** The routing columns of one event. */
export interface EventRouting {
  readonly eventType: string | null;
  readonly companyId: number | null;
  readonly templateId: number | null;
  readonly signRequestId: number | null;
}

const NONE: EventRouting = {
  eventType: null,
  companyId: null,
  templateId: null,
  signRequestId: null,
};

const integerAt = (value: Record<string, unknown>, member: string): number | null => {
  const found = Object.hasOwn(value, member) ? value[member] : undefined;
  return typeof found === 'number' && Number.isSafeInteger(found) ? found : null;
};

/** Reads the routing columns of a raw event value; never throws. */
export const routingOf = (event: unknown): EventRouting => {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return NONE;
  const value = event as Record<string, unknown>;
  const type = Object.hasOwn(value, 'type') ? value.type : undefined;
  return {
    eventType: typeof type === 'string' ? sqlText(type) : null,
    companyId: integerAt(value, 'companyId'),
    templateId: integerAt(value, 'templateId'),
    signRequestId: integerAt(value, 'signRequestId'),
  };
};

// PostgreSQL text holds neither NUL nor unpaired surrogates (UTF-8 only).
const SURROGATE = /[\ud800-\udfff]/;
const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A string as PostgreSQL text can hold it: NUL and unpaired UTF-16
 * surrogates become U+FFFD. Every other string is returned unchanged.
 */
export const sqlText = (text: string): string =>
  text.includes('\u0000') || SURROGATE.test(text)
    ? text.replace(UNPAIRED, '\ufffd').replaceAll('\u0000', '\ufffd')
    : text;
