/** `signfold serve`, declared once: its flags, its help. */

import { DEFAULT_MAX_EVENT_BYTES } from '../../engine/log-limits.js';
import { headerName } from '../../webhooks/signature-options.js';
import { choiceOption } from '../choice-option.js';
import { usageError } from '../cli-error.js';
import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import {
  booleanOption,
  describedAs,
  type Flag,
  type FlagMeta,
  repeatedOption,
  valueOption,
  withDefault,
} from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { fromTo, integerOption } from '../integer-option.js';

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
/** Largest `--timestamp-tolerance`: a day. */
const MAX_TOLERANCE_SECONDS = 86_400;

/** A header-name flag, as the handler will accept it (lower-cased); a usage error naming the flag otherwise. */
const headerOption = (meta: FlagMeta): Flag<string | undefined> =>
  valueOption(meta, (value, flag) => {
    try {
      return headerName(value, flag);
    } catch {
      throw usageError(`${flag} must be an HTTP header name (got '${value}')`);
    }
  });

const FLAGS = {
  log: valueOption({
    value: 'FILE',
    help: `append to this file log (created if missing); one serve
per file log: a second one is refused`,
  }),
  database: describedAs(
    DATABASE_FLAGS.database,
    `append to PostgreSQL (needs the package pg; run
signfold pg migrate first); serves may share it`,
  ),
  schema: describedAs(DATABASE_FLAGS.schema, 'the schema of --database (default signfold)'),
  'connect-timeout': describedAs(
    DATABASE_FLAGS['connect-timeout'],
    `give up on a database that does not answer within this
time (1 to 86400, default 10)`,
  ),
  port: withDefault(
    integerOption(
      { value: 'N', help: 'port to listen on (default 8080; 0: any free port)' },
      fromTo(0, 65_535),
    ),
    DEFAULT_PORT,
  ),
  host: withDefault(
    valueOption({ value: 'H', help: 'address to listen on (default 127.0.0.1)' }),
    DEFAULT_HOST,
  ),
  'secret-env': repeatedOption({
    value: 'NAME[:COMPANY,COMPANY...]',
    help: `environment variable holding a secret (repeatable: any
of them verifies, for rotation; default
SIGNFOLD_WEBHOOK_SECRET); empty values do not count.
With companies, the secret stores only their events
(another company's: 403, not stored)`,
  }),
  scheme: withDefault(
    choiceOption(
      {
        value: 'S',
        help: `hmac (default) or standard-webhooks (headers
webhook-id, webhook-timestamp, webhook-signature;
secrets whsec_..., or whpk_... Ed25519 public keys;
webhook-id is the delivery id and is required)`,
      },
      ['hmac', 'standard-webhooks'],
    ),
    'hmac',
  ),
  'signature-header': headerOption({
    value: 'H',
    help: 'hmac: header carrying the signature (default x-signature)',
  }),
  'signature-encoding': choiceOption({ value: 'E', help: 'hmac: hex (default) or base64' }, [
    'hex',
    'base64',
  ]),
  'signature-prefix': valueOption({
    value: 'P',
    help: 'hmac: optional prefix of each value (default sha256=)',
  }),
  'timestamp-header': headerOption({
    value: 'H',
    help: `hmac: the signed content is TIMESTAMP.BODY, with the
timestamp (whole seconds) from this header`,
  }),
  'timestamp-tolerance': integerOption(
    {
      value: 'SECONDS',
      help: `refuse (401) a timestamp further than this from now
(1 to 86400, default 300)`,
    },
    fromTo(1, MAX_TOLERANCE_SECONDS, 'seconds'),
  ),
  'delivery-header': headerOption({
    value: 'H',
    help: `hmac: header carrying the delivery id (default
x-delivery-id)`,
  }),
  'require-delivery-id': booleanOption({ help: 'refuse (400) a delivery without a delivery id' }),
  // Up to the event log's limit of one event: a larger body could not be stored anyway (the log
  // answers too-large), and raising the log's limit would write lines other readers refuse.
  'max-body': withDefault(
    integerOption(
      { value: 'BYTES', help: 'largest body accepted (1 to 262144, default 262144)' },
      {
        min: 1,
        max: DEFAULT_MAX_EVENT_BYTES,
        refuse: (flag, value) =>
          `${flag} must be 1 to ${DEFAULT_MAX_EVENT_BYTES} bytes (the event log's limit of one event; got '${value}')`,
      },
    ),
    DEFAULT_MAX_EVENT_BYTES,
  ),
  'insecure-no-signature': booleanOption({
    help: `accept deliveries without verifying them (no secret
may be set then)`,
  }),
  'append-timeout': withDefault(
    integerOption(
      {
        value: 'SECONDS',
        help: `answer 503 to a delivery whose append has not
committed within this time (1 to 60, default 5); the
sender delivers it again, stored once by its id`,
      },
      fromTo(1, MAX_APPEND_TIMEOUT_SECONDS, 'seconds'),
    ),
    DEFAULT_APPEND_TIMEOUT_SECONDS,
  ),
  reactors: valueOption({
    value: 'MODULE',
    help: `with --log: also run these reactors in this process,
as signfold react LOG does (gauges
signfold_effects_pending and _parked on /metrics);
with --database they run in signfold pg work`,
  }),
  upcasters: valueOption({
    value: 'MODULE',
    help: `with --reactors: rewrite records before the reactors'
projector decodes them (deliveries are stored as
received); with --database: signfold pg work --upcasters`,
  }),
  'read-token-env': repeatedOption({
    value: 'NAME:COMPANY,COMPANY...',
    help: `serve the read API and live page to the bearer token
in this environment variable (at least 16
characters), showing only these companies' records;
repeatable, one variable per client`,
  }),
  tracing: valueOption({
    value: 'MODULE',
    help: `OpenTelemetry spans of each delivery and its append
(and of the --reactors' work): MODULE is an ES module
whose default export is a TracerProvider (or a
function returning one); needs the package
@opentelemetry/api; flushed at exit (docs/tracing.md)`,
  }),
};

/** `signfold serve`. */
export const SERVE_COMMAND = defineCommand({
  overview: [
    'serve',
    'receive webhook deliveries over HTTP into a log (--log FILE or --database URL)',
  ],
  flags: FLAGS,
  positionals: [],
  help: () =>
    [
      `Usage: signfold serve (--log FILE | --database URL) [--port 8080] [--host 127.0.0.1]
                      [--secret-env NAME[:COMPANY,COMPANY...]]... [--scheme hmac|standard-webhooks]
                      [--signature-header H] [--signature-encoding hex|base64]
                      [--signature-prefix P] [--timestamp-header H] [--timestamp-tolerance SECONDS]
                      [--delivery-header H] [--require-delivery-id]
                      [--max-body BYTES] [--insecure-no-signature] [--append-timeout SECONDS]
                      [--schema NAME] [--connect-timeout SECONDS] [--reactors MODULE]
                      [--upcasters MODULE] [--read-token-env NAME:COMPANY,COMPANY...]...
                      [--tracing MODULE]

Receive webhook deliveries over HTTP: verify each one's signature (by default
HMAC-SHA256 of the raw body, hex, optionally prefixed sha256=; or Standard
Webhooks), append it durably to the log, and only then answer 200 (a
redelivered id: 200, stored once). Until
SIGTERM or SIGINT; then requests in progress finish, the log is closed, exit 0
(exit 1 if that takes over 10 s).

  POST /webhooks   a delivery: 200 stored (or duplicate), 400 not JSON, 401 bad
                   signature, 403 secret bound to other companies, 405 not POST, 413 too large, 503 storage down
                   or no commit within --append-timeout (Retry-After: 5)
  GET /healthz     200 while the process runs
  GET /readyz      200 while deliveries can be stored now, 503 otherwise
  GET /metrics     Prometheus metrics (signfold_webhook_deliveries_total, ...; with
                   --reactors or --database also the lag and effect gauges)
  With --read-token-env (Authorization: Bearer TOKEN; 401 without a known
  token, 404 for whatever is not the token's companies', 429 over its rate):
  GET /api/sign-requests/ID   one sign request, its participants and audit trail
  GET /api/sign-requests      a page of them (?status= &stuck-after= &company=
                              &limit= (1 to 500, default 50) &cursor=)
  GET /report                 the HTML report of the token's companies, made on load
  A browser opens them through a link of signfold read-link, traded for a cookie.

Prints "listening on http://HOST:PORT (...)" on stdout once listening, and one
JSON line per request on stderr.

Options:`,
      helpRows(
        FLAGS,
        [
          'log',
          'database',
          'schema',
          'connect-timeout',
          'port',
          'host',
          'secret-env',
          'scheme',
          'signature-header',
          'signature-encoding',
          'signature-prefix',
          'timestamp-header',
          'timestamp-tolerance',
          'delivery-header',
          'require-delivery-id',
          'max-body',
          'insecure-no-signature',
          'append-timeout',
          'reactors',
          'upcasters',
          'read-token-env',
          'tracing',
          HELP_ROW,
        ],
        { width: 24 },
      ),
      `
Exit codes: 0 stopped by a signal, 1 shutdown took longer than 10 s, 2 usage,
configuration, storage or listen error.`,
    ].join('\n'),
});
