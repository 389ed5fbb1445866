/** `signfold emulate`, declared once: its flags, its help. */
import { defineCommand } from '../define-command.js';
import { valueOption } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';

const FLAGS = {
  to: valueOption({ value: 'URL', help: 'where to deliver, e.g. http://127.0.0.1:8080/webhooks' }),
  'secret-env': valueOption({
    value: 'NAME',
    help: `environment variable holding the signing secret: any
text under hmac; whsec_... (HMAC) or whsk_... (an
Ed25519 seed; its whpk_ public key is printed) under
standard-webhooks`,
  }),
  scheme: valueOption({
    value: 'S',
    help: `hmac (default: x-signature sha256=HEX, x-delivery-id,
as signfold serve verifies by default) or
standard-webhooks (webhook-id, webhook-timestamp,
webhook-signature)`,
  }),
  seed: valueOption({ value: 'N', help: 'seed of the stories and the faults (default 1)' }),
  requests: valueOption({ value: 'N', help: 'sign requests to play (default 20)' }),
  templates: valueOption({ value: 'N', help: 'templates, spread over the companies (default 3)' }),
  companies: valueOption({ value: 'N', help: 'companies 1..N (default 2)' }),
  'decline-ratio': valueOption({
    value: 'P',
    help: 'share of requests a participant declines (default 0.1)',
  }),
  signing: valueOption({
    value: 'S',
    help: `parallel, sequential or mixed (default: each request
draws one)`,
  }),
  rate: valueOption({ value: 'N', help: 'deliveries started per second (default 0: no limit)' }),
  loss: valueOption({ value: 'P', help: 'share of events never delivered (0 to 1, default 0)' }),
  duplicate: valueOption({ value: 'P', help: 'share delivered twice under one delivery id' }),
  reorder: valueOption({
    value: 'P',
    help: `share sent after later events (default 0: the
receiver sees the emitted order)`,
  }),
  delay: valueOption({ value: 'MS', help: 'a seeded wait of up to MS before each delivery' }),
  retries: valueOption({ value: 'N', help: 'retries of a delivery (default 5)' }),
  timeout: valueOption({ value: 'SECONDS', help: 'deadline of one attempt (default 5)' }),
  'api-port': valueOption({
    value: 'PORT',
    help: `serve the read API on 127.0.0.1:PORT (0: any free
port); prints "read API on http://127.0.0.1:PORT"`,
  }),
  'api-fail': valueOption({
    value: 'P',
    help: `answer this share of read API requests 503, with
Retry-After: 1 (0 to 1, default 0)`,
  }),
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
