/**
 * The signature options with their defaults filled in, checked once when the
 * handler is created: a wrong option is a programmer's error and throws
 * there, never on a request.
 */
import type {
  SignatureAlgorithm,
  SignatureEncoding,
  SignatureOptions,
  SignatureSchemeName,
  StandardWebhooksOptions,
  TimestampOptions,
} from './webhook-types.js';

/** The default signature header, part of the contract. */
export const DEFAULT_SIGNATURE_HEADER = 'x-signature';

const ALGORITHMS: readonly SignatureAlgorithm[] = ['sha256', 'sha1', 'sha512'];
const ENCODINGS: readonly SignatureEncoding[] = ['hex', 'base64'];
// RFC 9110 token characters: what a header name may be.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The default tolerance of Standard Webhooks' `webhook-timestamp`: 5 minutes. */
export const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 300;

/** {@link SignatureOptions} resolved. */
export interface SignatureScheme {
  readonly kind: 'hmac';
  readonly headers: readonly string[];
  readonly algorithm: SignatureAlgorithm;
  readonly encoding: SignatureEncoding;
  /** Lower-cased; `''` for none. */
  readonly prefix: string;
  readonly timestamp: Required<TimestampOptions> | undefined;
}

/** A header name, lower-cased; throws `TypeError` on one that cannot be a header. */
export const headerName = (name: unknown, option: string): string => {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new TypeError(`${option} must be a header name (got ${JSON.stringify(name)})`);
  }
  return name.toLowerCase();
};

const oneOf = <T extends string>(value: unknown, allowed: readonly T[], option: string): T => {
  if (!allowed.includes(value as T)) {
    throw new TypeError(`${option} must be one of ${allowed.join(', ')} (got ${String(value)})`);
  }
  return value as T;
};

const defaultSignedPayload = (timestamp: string, body: Uint8Array): Uint8Array =>
  Buffer.concat([Buffer.from(`${timestamp}.`), body]);

/** {@link StandardWebhooksOptions} resolved. */
export interface StandardWebhooksScheme {
  readonly kind: 'standard-webhooks';
  readonly toleranceSeconds: number;
}

/** A scheme of either kind, resolved. */
export type ResolvedScheme = SignatureScheme | StandardWebhooksScheme;

const positiveSeconds = (value: unknown, option: string): number => {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${option} must be a positive number (got ${String(value)})`);
  }
  return value;
};

const resolveTimestamp = (
  options: TimestampOptions | undefined,
): Required<TimestampOptions> | undefined => {
  if (options === undefined) return undefined;
  const toleranceSeconds = positiveSeconds(
    options.toleranceSeconds,
    'signature.timestamp.toleranceSeconds',
  );
  return {
    header: headerName(options.header, 'signature.timestamp.header'),
    toleranceSeconds,
    signedPayload: options.signedPayload ?? defaultSignedPayload,
  };
};

/** Fills in the defaults and checks every member; throws `TypeError`/`RangeError` on a wrong one. */
export const signatureScheme = (options: SignatureOptions = {}): SignatureScheme => {
  if (options.scheme !== undefined && options.scheme !== 'hmac') {
    throw new TypeError(`signature.scheme must be hmac here (got ${String(options.scheme)})`);
  }
  const algorithm = oneOf(options.algorithm ?? 'sha256', ALGORITHMS, 'signature.algorithm');
  const encoding = oneOf(options.encoding ?? 'hex', ENCODINGS, 'signature.encoding');
  const named = options.header ?? DEFAULT_SIGNATURE_HEADER;
  const headers = (typeof named === 'string' ? [named] : [...named]).map((name) =>
    headerName(name, 'signature.header'),
  );
  if (headers.length === 0) throw new TypeError('signature.header must name at least one header');
  const prefix = options.prefix ?? `${algorithm}=`;
  if (typeof prefix !== 'string') throw new TypeError('signature.prefix must be a string');
  return {
    kind: 'hmac',
    headers,
    algorithm,
    encoding,
    prefix: prefix.toLowerCase(),
    timestamp: resolveTimestamp(options.timestamp),
  };
};

const SCHEMES: readonly SignatureSchemeName[] = ['hmac', 'standard-webhooks'];

/**
 * The handler's `signature` option resolved: a scheme's name, or its
 * options (`scheme: 'standard-webhooks'` or, by default, `hmac`). Throws
 * `TypeError`/`RangeError` on a wrong one.
 */
export const resolveScheme = (
  option: SignatureSchemeName | SignatureOptions | StandardWebhooksOptions | undefined,
): ResolvedScheme => {
  if (typeof option === 'string') {
    const name = oneOf(option, SCHEMES, 'signature');
    return name === 'hmac'
      ? signatureScheme()
      : { kind: 'standard-webhooks', toleranceSeconds: STANDARD_WEBHOOKS_TOLERANCE_SECONDS };
  }
  if (option?.scheme !== 'standard-webhooks') return signatureScheme(option);
  const extra = Object.keys(option).filter((key) => key !== 'scheme' && key !== 'toleranceSeconds');
  if (extra.length > 0) {
    throw new TypeError(
      `signature: the standard-webhooks scheme fixes its headers and encoding; ${extra.join(', ')} cannot be set`,
    );
  }
  return {
    kind: 'standard-webhooks',
    toleranceSeconds:
      option.toleranceSeconds === undefined
        ? STANDARD_WEBHOOKS_TOLERANCE_SECONDS
        : positiveSeconds(option.toleranceSeconds, 'signature.toleranceSeconds'),
  };
};
