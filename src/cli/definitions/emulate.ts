/** `signfold emulate`, declared once: its flags, its help. */
import { choiceOption } from '../choice-option.js';
import { usageError } from '../cli-error.js';
import { defineCommand } from '../define-command.js';
import { type Flag, type FlagMeta, valueOption, withDefault } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { integerOption } from '../integer-option.js';

/** Largest story a command line asks for: a bound on memory, not a product limit. */
const MAX_REQUESTS = 100_000;

/** A whole number from `min` to `max`, `fallback` when not given. */
const count = (meta: FlagMeta, min: number, max: number, fallback: number): Flag<number> =>
  withDefault(
    integerOption(meta, {
      min,
      max,
      refuse: (flag, value) => `${flag} must be from ${min} to ${max} (got '${value}')`,
    }),
    fallback,
  );

/** A share from 0 to 1, written as a decimal; `fallback` when not given. */
const share = (meta: FlagMeta, fallback: number): Flag<number> =>
  withDefault(
    valueOption(meta, (value, flag) => {
      const parsed = /^(0|1|0?\.\d+|1\.0+)$/.test(value) ? Number(value) : Number.NaN;
      if (!(parsed >= 0 && parsed <= 1)) {
        throw usageError(`${flag} must be a number from 0 to 1 (got '${value}')`);
      }
      return parsed;
    }),
    fallback,
  );

const FLAGS = {
  to: valueOption(
    { value: 'URL', help: 'where to deliver, e.g. http://127.0.0.1:8080/webhooks' },
    (value, flag) => {
      if (!/^https?:\/\//.test(value))
        throw usageError(`${flag} must be an http:// or https:// URL`);
      return value;
    },
  ),
  'secret-env': valueOption({
    value: 'NAME',
    help: `environment variable holding the signing secret: any
text under hmac; whsec_... (HMAC) or whsk_... (an
Ed25519 seed; its whpk_ public key is printed) under
standard-webhooks`,
  }),
  scheme: choiceOption(
    {
      value: 'S',
      help: `hmac (default: x-signature sha256=HEX, x-delivery-id,
as signfold serve verifies by default) or
standard-webhooks (webhook-id, webhook-timestamp,
webhook-signature)`,
    },
    ['hmac', 'standard-webhooks'],
  ),
  seed: count(
    { value: 'N', help: 'seed of the stories and the faults (default 1)' },
    0,
    2 ** 32 - 1,
    1,
  ),
  requests: count({ value: 'N', help: 'sign requests to play (default 20)' }, 0, MAX_REQUESTS, 20),
  templates: count(
    { value: 'N', help: 'templates, spread over the companies (default 3)' },
    1,
    1000,
    3,
  ),
  companies: count({ value: 'N', help: 'companies 1..N (default 2)' }, 1, 1000, 2),
  'decline-ratio': share(
    { value: 'P', help: 'share of requests a participant declines (default 0.1)' },
    0.1,
  ),
  signing: withDefault(
    choiceOption(
      {
        value: 'S',
        help: `parallel, sequential or mixed (default: each request
draws one)`,
      },
      ['parallel', 'sequential', 'mixed'],
    ),
    'mixed',
  ),
  rate: count(
    { value: 'N', help: 'deliveries started per second (default 0: no limit)' },
    0,
    100_000,
    0,
  ),
  loss: share({ value: 'P', help: 'share of events never delivered (0 to 1, default 0)' }, 0),
  duplicate: share({ value: 'P', help: 'share delivered twice under one delivery id' }, 0),
  reorder: share(
    {
      value: 'P',
      help: `share sent after later events (default 0: the
receiver sees the emitted order)`,
    },
    0,
  ),
  delay: count(
    { value: 'MS', help: 'a seeded wait of up to MS before each delivery' },
    0,
    60_000,
    0,
  ),
  retries: count({ value: 'N', help: 'retries of a delivery (default 5)' }, 0, 100, 5),
  timeout: count({ value: 'SECONDS', help: 'deadline of one attempt (default 5)' }, 1, 600, 5),
  'api-port': integerOption(
    {
      value: 'PORT',
      help: `serve the read API on 127.0.0.1:PORT (0: any free
port); prints "read API on http://127.0.0.1:PORT"`,
    },
    {
      min: 0,
      max: 65_535,
      refuse: (flag, value) => `${flag} must be from 0 to 65535 (got '${value}')`,
    },
  ),
  'api-fail': share(
    {
      value: 'P',
      help: `answer this share of read API requests 503, with
Retry-After: 1 (0 to 1, default 0)`,
    },
    0,
  ),
  record: valueOption({
    value: 'FILE',
    help: `write one JSON line per event emitted, in order:
{"deliveryId", "event"}; the same seed and options
write the same bytes`,
  }),
  scenario: valueOption({
    value: 'FILE',
    help: `play these commands instead of a seeded story: one
JSON command a line (or a JSON array), as
docs/decider.md lists them; one the service refuses
stops it (exit 2), naming its line and the rule`,
  }),
};

/** `signfold emulate`. */
export const EMULATE_COMMAND = defineCommand({
  overview: [
    'emulate',
    'a local e-signature service: signed webhooks to --to URL, a read API (--api-port)',
  ],
  flags: FLAGS,
  positionals: [],
  help: () =>
    [
      `Usage: signfold emulate --to URL --secret-env NAME [--scheme hmac|standard-webhooks]
                        [--seed N] [--requests N] [--templates N] [--companies N]
                        [--decline-ratio P] [--signing parallel|sequential|mixed]
                        [--rate N] [--loss P] [--duplicate P] [--reorder P] [--delay MS]
                        [--retries N] [--timeout SECONDS] [--api-port PORT] [--record FILE]
                        [--api-fail P] [--scenario FILE]

A local e-signature service, for trying signfold (or your own receiver) without
the real one: it plays seeded sign-request stories (templates; requests with one
to three participants signing in parallel or in order; views, downloads,
signatures, declines, deletions, requests left open), each step decided by the
service's rules, and sends each event as one signed delivery to URL, in the order
it emitted them, one at a time. A delivery without a 2xx answer in time is sent
again under the same delivery id, with backoff, up to --retries times, then given
up. Exits 0 once every delivery is acknowledged or given up; with --api-port it
keeps answering the read API until SIGTERM or SIGINT (exit 0). One progress line a
second at most on stderr, and a summary (sent, acknowledged, retried, lost,
duplicated, reordered, given up). --to may be left out with --api-port or --record.
--scenario FILE plays your own commands instead.

  GET /sign-requests/ID   (with --api-port) the request as the service holds it
                          now (its section 2.1 representation), 404 if unknown
                          or deleted
  GET /sign-requests      all of them, as a JSON array

Options:`,
      helpRows(
        FLAGS,
        [
          'to',
          'secret-env',
          'scheme',
          'seed',
          'requests',
          'templates',
          'companies',
          'decline-ratio',
          'signing',
          'rate',
          'loss',
          'duplicate',
          'reorder',
          'delay',
          'retries',
          'timeout',
          'api-port',
          'api-fail',
          'record',
          'scenario',
          HELP_ROW,
        ],
        { width: 24 },
      ),
      `
Exit codes: 0 done (or stopped by a signal), 2 usage or input error.`,
    ].join('\n'),
});
