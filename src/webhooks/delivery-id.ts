/**
 * The delivery id of a request: stored unchanged as the record's
 * `deliveryId`, the key that makes a redelivery a duplicate. A blank header
 * counts as none. An id no log can store the same everywhere (PostgreSQL text
 * holds neither NUL nor unpaired surrogates) is refused with 400 by every log,
 * so the answer does not depend on where events are stored.
 */
import { err, ok, type Result } from 'neverthrow';
import { unstorableText } from '../engine/storable-text.js';
import { headerValues } from './header-values.js';
import type { WebhookHeaders } from './webhook-types.js';

/** The default delivery header, part of the contract. */
export const DEFAULT_DELIVERY_HEADER = 'x-delivery-id';

/** The id (`undefined` when absent or blank), or why it cannot be stored. */
export const deliveryIdOf = (
  headers: WebhookHeaders,
  header: string,
  required: boolean,
): Result<string | undefined, string> => {
  const values = headerValues(headers, header).filter((value) => value.trim() !== '');
  if (values.length > 1) return err(`several ${header} headers: send one delivery id`);
  const [id] = values;
  if (id === undefined) {
    return required ? err(`missing delivery id header ${header}`) : ok(undefined);
  }
  const unstorable = unstorableText(id);
  return unstorable === undefined ? ok(id) : err(`delivery id (${header}) ${unstorable}`);
};

/**
 * The id a scheme read itself (Standard Webhooks' signed `webhook-id`, or a
 * verify hook's), checked like a header's; without one, the header's.
 */
export const checkedId = (
  given: string | undefined,
  header: string,
  required: boolean,
  headers: WebhookHeaders,
): Result<string | undefined, string> => {
  if (given === undefined) return deliveryIdOf(headers, header, required);
  const unstorable = unstorableText(given);
  return unstorable === undefined ? ok(given) : err(`delivery id (${header}) ${unstorable}`);
};
