/**
 * Named string formats used by the sign-request description. Each one has the
 * check the decoder runs and the JSON Schema keywords the generator emits, side
 * by side, so a change to one is a visible change to the other.
 */
import { describeValue } from '../decode-error.js';
import { BASE64_PATTERN, base64Problem } from './base64.js';
import { SAVED_TIME_PATTERN, savedTimeProblem } from './saved-time.js';

/** A string format: a check (`undefined` = valid) plus its JSON Schema keywords. */
export interface StringFormat {
  readonly problem: (text: string) => string | undefined;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** RFC 6838 §4.2 `restricted-name`: 1 to 127 characters, the first alphanumeric. */
const RESTRICTED_NAME = '[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}';
const MEDIA_TYPE_PATTERN = `^${RESTRICTED_NAME}/${RESTRICTED_NAME}$`;
const MEDIA_TYPE = new RegExp(MEDIA_TYPE_PATTERN);

/** RFC 5321 limits a forward path to 256 octets including the angle brackets. */
export const EMAIL_MAX_LENGTH = 254;
const EMAIL_PATTERN = '^\\S+$';
const WHITESPACE = /\s/;

/** Code points, as JSON Schema `maxLength` counts them; stops once `limit` is passed. */
const codePointsUpTo = (text: string, limit: number): number => {
  let count = 0;
  for (const _ of text) {
    count++;
    if (count > limit) break;
  }
  return count;
};

const mediaTypeProblem = (text: string): string | undefined =>
  // 255 = two 127-character names and the slash; longer text never matches.
  text.length <= 255 && MEDIA_TYPE.test(text)
    ? undefined
    : `expected a media type "type/subtype" (RFC 6838, no parameters), got ${describeValue(text)}`;

const emailProblem = (text: string): string | undefined => {
  if (text.length === 0) return 'e-mail address is empty';
  if (text.length > EMAIL_MAX_LENGTH && codePointsUpTo(text, EMAIL_MAX_LENGTH) > EMAIL_MAX_LENGTH) {
    return `e-mail address is longer than ${EMAIL_MAX_LENGTH} characters`;
  }
  return WHITESPACE.test(text)
    ? `e-mail address contains whitespace: ${describeValue(text)}`
    : undefined;
};

/** Every format, by name. */
export const STRING_FORMATS = {
  'saved-time': {
    problem: savedTimeProblem,
    schema: { pattern: SAVED_TIME_PATTERN },
  },
  base64: {
    problem: base64Problem,
    schema: { pattern: BASE64_PATTERN, contentEncoding: 'base64' },
  },
  'media-type': {
    problem: mediaTypeProblem,
    schema: { pattern: MEDIA_TYPE_PATTERN, maxLength: 255 },
  },
  email: {
    problem: emailProblem,
    schema: { pattern: EMAIL_PATTERN, minLength: 1, maxLength: EMAIL_MAX_LENGTH },
  },
} as const satisfies Record<string, StringFormat>;

/** The name of a string format. */
export type StringFormatName = keyof typeof STRING_FORMATS;
