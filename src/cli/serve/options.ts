/**
 * The command line of `signfold serve`, checked in full before anything is
 * opened or bound: a wrong flag is exit 2 with one line, never a server that
 * starts half-configured.
 */

import { DEFAULT_MAX_EVENT_BYTES } from '../../engine/log-limits.js';
import {
  headerName,
  STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
} from '../../webhooks/signature-options.js';
import type { SignatureEncoding, SignatureSchemeName } from '../../webhooks/webhook-types.js';
import {
  booleanFlag,
  choiceFlag,
  expectPositionals,
  integerFlag,
  type ParsedArgs,
  parseCommandArgs,
  stringFlag,
} from '../args.js';
import { CliError, usageError } from '../cli-error.js';
import { checkDatabaseUrl } from '../database-url.js';
import { SERVE_COMMAND } from '../definitions/serve.js';
import { optionTableOf } from '../flags.js';
import { connectTimeoutOf } from '../postgres-pool.js';
import type { EventSource } from '../sources/event-source.js';
import { type ReadTokenEnv, readTokenEnvsOf } from './read-api/read-token-env.js';
import type { SecretEnv } from './secrets.js';

/** The flags' table for `parseArgs`, from the definition. */
const SERVE_OPTIONS = optionTableOf(SERVE_COMMAND.flags);

/** The port `serve` listens on unless `--port` says otherwise. */
export const DEFAULT_PORT = 8080;
/** Loopback only by default: the server is meant to sit behind a proxy that terminates TLS. */
export const DEFAULT_HOST = '127.0.0.1';
/**
 * How long an append may take to commit before its delivery is answered
 * 503 (`--append-timeout`), in seconds: well under the 10 s many senders
 * wait for an answer, so they get the 503 and its `Retry-After` rather than
 * a timeout of their own, and inside the 10 s shutdown bound.
 */
export const DEFAULT_APPEND_TIMEOUT_SECONDS = 5;
/** A minute: past it a sender has long given up on the answer. */
const MAX_APPEND_TIMEOUT_SECONDS = 60;

/** The variable a secret is read from when no `--secret-env` is given. */
export const DEFAULT_SECRET_ENV = 'SIGNFOLD_WEBHOOK_SECRET';

/** Where deliveries are appended: a log file or a PostgreSQL schema, named as the other commands name them. */
export type ServeStorageTarget = EventSource;

/** Everything `serve` was asked to do. */
export interface ServeOptions {
  readonly storage: ServeStorageTarget;
  readonly port: number;
  readonly host: string;
  /** The environment variables holding the secrets, in the order given, with their companies. */
  readonly secretEnv: readonly SecretEnv[];
  /** `--scheme`: `hmac` (the default) or `standard-webhooks`. */
  readonly scheme: SignatureSchemeName;
  readonly signatureHeader: string | undefined;
  readonly signatureEncoding: SignatureEncoding | undefined;
  readonly signaturePrefix: string | undefined;
  /** `--timestamp-header` (hmac) and `--timestamp-tolerance` (both schemes), in seconds. */
  readonly timestamp:
    | { readonly header: string | undefined; readonly toleranceSeconds: number }
    | undefined;
  readonly deliveryHeader: string | undefined;
  readonly requireDeliveryId: boolean;
  readonly maxBodyBytes: number;
  readonly insecureNoSignature: boolean;
  /** `--reactors MODULE` (file log only), run in the server process. */
  readonly reactors: string | undefined;
  /** `--upcasters MODULE` (with `--reactors` only): what the server's reactors see. */
  readonly upcasters: string | undefined;
  /** `--tracing MODULE`: spans of deliveries, appends (and the reactors' work). */
  readonly tracing: string | undefined;
  /** `--append-timeout SECONDS`, in ms: an append not committed by then is answered 503. */
  readonly appendTimeoutMs: number;
  /** `--read-token-env NAME:COMPANY,...` (repeatable): the read API's tokens; none, no read API. */
  readonly readTokenEnv: readonly ReadTokenEnv[];
}

/** `--log FILE` or `--database URL [--schema NAME] [--connect-timeout SECONDS]`, exactly one. */
const storageOf = (parsed: ParsedArgs): ServeStorageTarget => {
  const path = stringFlag(parsed, 'log');
  const url = stringFlag(parsed, 'database');
  const schema = stringFlag(parsed, 'schema');
  if (path !== undefined && url !== undefined) {
    throw usageError('give --log FILE or --database URL, not both');
  }
  if (url === undefined) {
    if (schema !== undefined) throw usageError('--schema needs --database URL');
    if (stringFlag(parsed, 'connect-timeout') !== undefined) {
      throw usageError('--connect-timeout needs --database URL');
    }
    if (path === undefined) throw usageError('missing --log FILE or --database URL');
    if (path === '') throw usageError('--log needs a file name');
    return { kind: 'file', path };
  }
  checkDatabaseUrl(url);
  return { kind: 'database', url, schema, connectTimeoutMs: connectTimeoutOf(parsed) };
};

/** `--port N`: 0 (any free port, printed once bound) to 65535. */
const portOf = (parsed: ParsedArgs): number => {
  const raw = stringFlag(parsed, 'port');
  if (raw === undefined) return DEFAULT_PORT;
  const port = integerFlag('--port', raw);
  if (port > 65_535) throw usageError(`--port must be 0 to 65535 (got '${raw}')`);
  return port;
};

/**
 * `--max-body BYTES`: 1 up to the event log's limit of one event (256 KiB). A
 * larger body could not be stored anyway (the log answers too-large), and
 * raising the log's limit would write lines other readers refuse.
 */
const maxBodyOf = (parsed: ParsedArgs): number => {
  const raw = stringFlag(parsed, 'max-body');
  if (raw === undefined) return DEFAULT_MAX_EVENT_BYTES;
  const bytes = integerFlag('--max-body', raw);
  if (bytes < 1 || bytes > DEFAULT_MAX_EVENT_BYTES) {
    throw usageError(
      `--max-body must be 1 to ${DEFAULT_MAX_EVENT_BYTES} bytes (the event log's limit of one event; got '${raw}')`,
    );
  }
  return bytes;
};

/** A header-name flag, as the handler will accept it; a usage error naming the flag otherwise. */
const headerFlag = (parsed: ParsedArgs, name: string): string | undefined => {
  const raw = stringFlag(parsed, name);
  if (raw === undefined) return undefined;
  try {
    return headerName(raw, `--${name}`);
  } catch {
    throw usageError(`--${name} must be an HTTP header name (got '${raw}')`);
  }
};

/** `--append-timeout SECONDS`: 1 to 60 (default 5), in milliseconds. */
const appendTimeoutOf = (parsed: ParsedArgs): number => {
  const raw = stringFlag(parsed, 'append-timeout');
  if (raw === undefined) return DEFAULT_APPEND_TIMEOUT_SECONDS * 1000;
  const seconds = integerFlag('--append-timeout', raw);
  if (seconds < 1 || seconds > MAX_APPEND_TIMEOUT_SECONDS) {
    throw usageError(
      `--append-timeout must be 1 to ${MAX_APPEND_TIMEOUT_SECONDS} (seconds; got '${raw}')`,
    );
  }
  return seconds * 1000;
};

/** Largest `--timestamp-tolerance`: a day. */
const MAX_TOLERANCE_SECONDS = 86_400;
// A company id as the wire writes one: a safe integer in decimal digits.
const COMPANY = /^-?[0-9]+$/;

/** One `--secret-env NAME[:COMPANY,COMPANY...]`. */
const secretEnvEntry = (value: string): SecretEnv => {
  const colon = value.indexOf(':');
  const name = colon === -1 ? value : value.slice(0, colon);
  if (name === '' || name.includes('=')) {
    throw usageError(`--secret-env must name an environment variable (got '${value}')`);
  }
  if (colon === -1) return { name };
  const listed = value.slice(colon + 1).split(',');
  const companies = listed.map(Number);
  if (!listed.every((id) => COMPANY.test(id)) || !companies.every(Number.isSafeInteger)) {
    throw usageError(
      `--secret-env ${name}: the companies after ':' must be company ids separated by commas (got '${value.slice(colon + 1)}')`,
    );
  }
  return { name, companies: companies.map((id) => id + 0) };
};

/** The `--secret-env` values (repeatable), or the default variable. */
const secretEnvOf = (parsed: ParsedArgs): readonly SecretEnv[] => {
  // `multiple: true` makes the value an array, which ParsedArgs' type does not say.
  const raw: unknown = parsed.values['secret-env'];
  const values = Array.isArray(raw) ? raw.filter((name) => typeof name === 'string') : [];
  return values.length === 0 ? [{ name: DEFAULT_SECRET_ENV }] : values.map(secretEnvEntry);
};

/** `--timestamp-tolerance SECONDS`: 1 to a day. */
const toleranceOf = (parsed: ParsedArgs): number | undefined => {
  const raw = stringFlag(parsed, 'timestamp-tolerance');
  if (raw === undefined) return undefined;
  const seconds = integerFlag('--timestamp-tolerance', raw);
  if (seconds < 1 || seconds > MAX_TOLERANCE_SECONDS) {
    throw usageError(
      `--timestamp-tolerance must be 1 to ${MAX_TOLERANCE_SECONDS} (seconds; got '${raw}')`,
    );
  }
  return seconds;
};

/** The flags that only the hmac scheme reads: Standard Webhooks fixes what they would set. */
const HMAC_ONLY = [
  ['signature-header', 'its signature is in webhook-signature'],
  ['signature-encoding', 'its signatures are base64'],
  ['signature-prefix', 'its signatures are v1, or v1a,'],
  ['timestamp-header', 'its timestamp is in webhook-timestamp'],
  ['delivery-header', 'its delivery id is the signed webhook-id'],
] as const;

/** `--scheme` and the flags of the signature, checked together. */
const signatureOf = (parsed: ParsedArgs) => {
  const raw = stringFlag(parsed, 'scheme');
  const scheme =
    raw === undefined
      ? 'hmac'
      : choiceFlag<SignatureSchemeName>('--scheme', raw, ['hmac', 'standard-webhooks']);
  const tolerance = toleranceOf(parsed);
  const encodingRaw = stringFlag(parsed, 'signature-encoding');
  const signatureEncoding =
    encodingRaw === undefined
      ? undefined
      : choiceFlag<SignatureEncoding>('--signature-encoding', encodingRaw, ['hex', 'base64']);
  const timestampHeader = headerFlag(parsed, 'timestamp-header');
  if (scheme === 'standard-webhooks') {
    for (const [flag, why] of HMAC_ONLY) {
      if (parsed.values[flag] !== undefined) {
        throw usageError(`--${flag} does not apply to --scheme standard-webhooks: ${why}`);
      }
    }
    const toleranceSeconds = tolerance ?? STANDARD_WEBHOOKS_TOLERANCE_SECONDS;
    return { scheme, signatureEncoding, timestamp: { header: undefined, toleranceSeconds } };
  }
  if (tolerance !== undefined && timestampHeader === undefined) {
    throw usageError(
      '--timestamp-tolerance needs --timestamp-header H (the header the sender signs its time in)',
    );
  }
  const timestamp =
    timestampHeader === undefined
      ? undefined
      : {
          header: timestampHeader,
          toleranceSeconds: tolerance ?? STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
        };
  return { scheme, signatureEncoding, timestamp };
};

/**
 * Parses and checks the arguments of `serve`. Throws a usage error (exit 2)
 * for anything wrong, and a plain one for `--reactors` with `--database`:
 * there the workers run the reactors (`pg work --reactors`).
 */
export const parseServeOptions = (args: readonly string[]): ServeOptions => {
  const parsed = parseCommandArgs(args, SERVE_OPTIONS);
  const reactors = stringFlag(parsed, 'reactors');
  if (reactors !== undefined && stringFlag(parsed, 'database') !== undefined) {
    throw new CliError(
      '--reactors: with --database, reactors run in the workers (signfold pg work --reactors MODULE), where effects are enqueued in the projection transaction',
    );
  }
  const upcasters = stringFlag(parsed, 'upcasters');
  if (upcasters !== undefined && reactors === undefined) {
    throw usageError(
      '--upcasters needs --reactors: serve stores deliveries as received, and only its reactors decode them (with --database, pg work --upcasters)',
    );
  }
  expectPositionals(parsed.positionals, []);
  const host = stringFlag(parsed, 'host') ?? DEFAULT_HOST;
  if (host === '') throw usageError('--host needs a host name or address');
  return {
    storage: storageOf(parsed),
    port: portOf(parsed),
    host,
    secretEnv: secretEnvOf(parsed),
    ...signatureOf(parsed),
    signatureHeader: headerFlag(parsed, 'signature-header'),
    signaturePrefix: stringFlag(parsed, 'signature-prefix'),
    deliveryHeader: headerFlag(parsed, 'delivery-header'),
    requireDeliveryId: booleanFlag(parsed, 'require-delivery-id'),
    maxBodyBytes: maxBodyOf(parsed),
    insecureNoSignature: booleanFlag(parsed, 'insecure-no-signature'),
    reactors,
    upcasters,
    appendTimeoutMs: appendTimeoutOf(parsed),
    readTokenEnv: readTokenEnvsOf(parsed.values['read-token-env']),
    tracing: stringFlag(parsed, 'tracing'),
  };
};
