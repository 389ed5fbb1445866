/**
 * The columns stored beside each event so workers and applications can
 * select events cheaply (by type, company, template, sign request). Taken
 * from the raw value member by member, ids by the decoder's own rule
 * (`wireId`): a member that is absent, or not an id the core would accept,
 * is stored as NULL. The body itself is always stored whole.
 */
import { wireId } from '../core/events/wire-id.js';

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

/** The id at `member`, by the decoder's own rule; NULL when it is absent or no id. */
const idAt = (value: Record<string, unknown>, member: string): number | null =>
  (Object.hasOwn(value, member) ? wireId(value[member]) : undefined) ?? null;

/** Reads the routing columns of a raw event value; never throws. */
export const routingOf = (event: unknown): EventRouting => {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return NONE;
  const value = event as Record<string, unknown>;
  const type = Object.hasOwn(value, 'type') ? value.type : undefined;
  return {
    eventType: typeof type === 'string' ? sqlText(type) : null,
    companyId: idAt(value, 'companyId'),
    templateId: idAt(value, 'templateId'),
    signRequestId: idAt(value, 'signRequestId'),
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
