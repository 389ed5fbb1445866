/**
 * JSON text that a log stores as it is, instead of `JSON.stringify` of the
 * parsed value. Parsing and stringifying loses what a sender wrote: `1e400`
 * becomes `null`, `12345678901234567890` loses digits, `"\u00e9"` becomes
 * `"é"`. A webhook body is evidence, so it is stored as received.
 *
 * Two rewrites keep the meaning and make the text storable on one NDJSON line
 * and in PostgreSQL text: a raw CR or LF can only be whitespace between tokens
 * in valid JSON (both are illegal inside strings), so each becomes a space;
 * an unpaired UTF-16 surrogate can only be inside a string (anywhere else the
 * text is not JSON), so it becomes its `\uXXXX` escape, which parses to the
 * same string.
 */
import { err, ok, type Result } from 'neverthrow';

// Under the `u` flag a surrogate range matches only surrogates that are not part of a pair.
const UNPAIRED_SURROGATE = /[\ud800-\udfff]/gu;
const LINE_BREAK = /[\r\n]/g;

/** Why a text is not JSON: the parser's message. */
export interface JsonTextError {
  readonly kind: 'not-json';
  readonly message: string;
}

/**
 * Validated JSON text and the value it parses to. Append it as the event
 * (`log.append(text, options)`) and the file, memory and PostgreSQL logs store
 * `text` itself. Build one with {@link jsonText}.
 */
export class JsonText {
  /** The text to store: the input, CR and LF as spaces, unpaired surrogates escaped. */
  readonly text: string;
  /** `JSON.parse(text)`, for a projector or routing columns. */
  readonly value: unknown;

  private constructor(text: string, value: unknown) {
    this.text = text;
    this.value = value;
  }

  /** A log that only knows `JSON.stringify` still stores the parsed value. */
  toJSON(): unknown {
    return this.value;
  }

  /** @internal Used by {@link jsonText} only, after the text parsed. */
  static of(text: string, value: unknown): JsonText {
    return new JsonText(text, value);
  }
}

/**
 * Checks that `text` is JSON (by `JSON.parse`, so exactly the texts the log
 * readers accept) and returns it ready to append. Never throws.
 *
 * @example
 * ```ts
 * import { jsonText } from 'signfold';
 * import { createMemoryEventLog } from 'signfold/file';
 *
 * const log = createMemoryEventLog();
 * const body = jsonText('{"type":"template-deleted","amount":1e400}');
 * if (body.isOk()) await log.append(body.value, { deliveryId: 'd-1' });
 * for await (const batch of log.read()) console.log(batch[0]?.raw.endsWith('1e400}}')); // true
 * ```
 */
export const jsonText = (text: string): Result<JsonText, JsonTextError> => {
  if (typeof text !== 'string') return err({ kind: 'not-json', message: 'not a string' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return err({
      kind: 'not-json',
      message: cause instanceof Error ? cause.message : String(cause),
    });
  }
  const oneLine = text.replace(LINE_BREAK, ' ');
  const storable = oneLine.replace(
    UNPAIRED_SURROGATE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return ok(JsonText.of(storable, value));
};

/** The value an appended event stands for: the parsed value of a {@link JsonText}, else itself. */
export const eventValueOf = (event: unknown): unknown =>
  event instanceof JsonText ? event.value : event;
