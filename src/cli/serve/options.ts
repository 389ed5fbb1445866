/**
 * The command line of `signfold serve`, checked in full before anything is
 * opened or bound: a wrong flag is exit 2 with one line, never a server that
 * starts half-configured. Each flag's value comes from its definition
 * (definitions/serve.ts); what is left here is serve's own: which flags go
 * together, the secrets and read tokens, and where deliveries are stored.
 */

import { STANDARD_WEBHOOKS_TOLERANCE_SECONDS } from '../../webhooks/signature-options.js';
import { CliError, usageError } from '../cli-error.js';
import { checkDatabaseUrl } from '../database-url.js';
import { type ParsedCommand, parseCommand } from '../define-command.js';
import { SERVE_COMMAND } from '../definitions/serve.js';
import type { EventSource } from '../sources/event-source.js';
import { readTokenEnvsOf } from './read-api/read-token-env.js';
import type { SecretEnv } from './secrets.js';

/** The variable a secret is read from when no `--secret-env` is given. */
export const DEFAULT_SECRET_ENV = 'SIGNFOLD_WEBHOOK_SECRET';

/** Where deliveries are appended: a log file or a PostgreSQL schema, named as the other commands name them. */
export type ServeStorageTarget = EventSource;

/** The command line of `serve`, read against its definition. */
type Parsed = ParsedCommand<typeof SERVE_COMMAND.flags>;

/** `--log FILE` or `--database URL [--schema NAME] [--connect-timeout SECONDS]`, exactly one. */
const storageOf = ({ values, given }: Parsed): ServeStorageTarget => {
  const { log: path, database: url, schema } = values;
  if (path !== undefined && url !== undefined) {
    throw usageError('give --log FILE or --database URL, not both');
  }
  if (url === undefined) {
    if (schema !== undefined) throw usageError('--schema needs --database URL');
    if (given('connect-timeout')) throw usageError('--connect-timeout needs --database URL');
    if (path === undefined) throw usageError('missing --log FILE or --database URL');
    if (path === '') throw usageError('--log needs a file name');
    return { kind: 'file', path };
  }
  checkDatabaseUrl(url);
  return { kind: 'database', url, schema, connectTimeoutMs: values.connectTimeout };
};

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
const secretEnvOf = (values: readonly string[]): readonly SecretEnv[] =>
  values.length === 0 ? [{ name: DEFAULT_SECRET_ENV }] : values.map(secretEnvEntry);

/** The flags that only the hmac scheme reads: Standard Webhooks fixes what they would set. */
const HMAC_ONLY = [
  ['signature-header', 'its signature is in webhook-signature'],
  ['signature-encoding', 'its signatures are base64'],
  ['signature-prefix', 'its signatures are v1, or v1a,'],
  ['timestamp-header', 'its timestamp is in webhook-timestamp'],
  ['delivery-header', 'its delivery id is the signed webhook-id'],
] as const;

/** `--scheme` and the flags of the signature, checked together. */
const signatureOf = ({ values, given }: Parsed) => {
  const { scheme, signatureEncoding, timestampTolerance: tolerance } = values;
  const timestampHeader = values.timestampHeader;
  if (scheme === 'standard-webhooks') {
    for (const [flag, why] of HMAC_ONLY) {
      if (given(flag)) {
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
export const parseServeOptions = (args: readonly string[]) => {
  const parsed = parseCommand(SERVE_COMMAND, args);
  const { values } = parsed;
  const { reactors, upcasters, host } = values;
  if (reactors !== undefined && values.database !== undefined) {
    throw new CliError(
      '--reactors: with --database, reactors run in the workers (signfold pg work --reactors MODULE), where effects are enqueued in the projection transaction',
    );
  }
  if (upcasters !== undefined && reactors === undefined) {
    throw usageError(
      '--upcasters needs --reactors: serve stores deliveries as received, and only its reactors decode them (with --database, pg work --upcasters)',
    );
  }
  if (host === '') throw usageError('--host needs a host name or address');
  return {
    storage: storageOf(parsed),
    port: values.port,
    host,
    /** The environment variables holding the secrets, in the order given, with their companies. */
    secretEnv: secretEnvOf(values.secretEnv),
    ...signatureOf(parsed),
    signatureHeader: values.signatureHeader,
    signaturePrefix: values.signaturePrefix,
    deliveryHeader: values.deliveryHeader,
    requireDeliveryId: values.requireDeliveryId,
    maxBodyBytes: values.maxBody,
    insecureNoSignature: values.insecureNoSignature,
    /** `--reactors MODULE` (file log only), run in the server process. */
    reactors,
    /** `--upcasters MODULE` (with `--reactors` only): what the server's reactors see. */
    upcasters,
    /** `--append-timeout SECONDS`, in ms: an append not committed by then is answered 503. */
    appendTimeoutMs: values.appendTimeout * 1000,
    /** `--read-token-env NAME:COMPANY,...` (repeatable): the read API's tokens; none, no read API. */
    readTokenEnv: readTokenEnvsOf(values.readTokenEnv),
    /** `--tracing MODULE`: spans of deliveries, appends (and the reactors' work). */
    tracing: values.tracing,
  };
};

/** Everything `serve` was asked to do. */
export type ServeOptions = ReturnType<typeof parseServeOptions>;
