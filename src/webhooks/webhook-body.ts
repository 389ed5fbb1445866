/**
 * The body of a delivery as JSON text to store: UTF-8 and JSON, or refused.
 * Any JSON value is accepted, even one that is not a valid event: the log
 * keeps it and the projector quarantines it, so nothing a sender considers
 * delivered is lost. A byte order mark is kept (`ignoreBOM`), so JSON.parse
 * refuses it as the file reader refuses one on any line but a file's first.
 * The one JSON value refused is an observation record (see `Observation`):
 * it would stand for the service's API, and a delivery is not that.
 */
import { err, ok, type Result } from 'neverthrow';
import { isObservationValue } from '../core/observations/observation.js';
import { type JsonText, jsonText } from '../engine/json-text.js';

/**
 * One decoder for every body: a whole-buffer `decode` keeps no state between
 * calls, and making one per request (an ICU converter each) was a measurable
 * share of a request's cost under load.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as JSON text, or the reason it is not JSON (answered 400). */
export const jsonBodyOf = (body: Uint8Array): Result<JsonText, string> => {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    return err('body is not UTF-8');
  }
  return jsonText(text)
    .mapErr((error) => `body is not JSON: ${error.message}`)
    .andThen((json) =>
      // An observation record speaks for the service's API: only reconcile appends one.
      isObservationValue(json.value)
        ? err('body is an observation record: those are appended by reconcile, never delivered')
        : ok(json),
    );
};
