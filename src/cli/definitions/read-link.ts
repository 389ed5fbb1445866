/** `signfold read-link`, declared once: its flags, its help. */
import { defineCommand } from '../define-command.js';
import { durationOption } from '../duration-flag.js';
import { valueOption } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';

/**
 * The longest life of a link: createReadLink's own bound (MAX_READ_LINK_MS
 * of signfold/http), said here so that `--help` loads no crypto.
 */
const MAX_LINK_LIFE_MS = 31 * 86_400_000;

const FLAGS = {
  'read-token-env': valueOption({
    value: 'NAME[:COMPANY,COMPANY...]',
    help: `the environment variable holding a read token that serve
is given (the same value as its --read-token-env); with
companies, the link sees only those (some of the token's),
else all the token's`,
  }),
  url: valueOption({
    value: 'BASE',
    help: `where serve answers, as the person's browser reaches it,
e.g. https://reports.example.com`,
  }),
  expires: durationOption(
    {
      value: 'DURATION',
      help: `how long the link works: 90m, 24h, 7d, ... (default 24h,
at most 31d)`,
    },
    {
      ms: MAX_LINK_LIFE_MS,
      refuse: (flag, value) =>
        `${flag} must be at most 31d: a link is revoked only with every other link of its token (got '${value}')`,
    },
  ),
};

/** `signfold read-link`. */
export const READ_LINK_COMMAND = defineCommand({
  overview: [
    'read-link',
    "print a link that opens serve's live report in a browser (--read-token-env NAME)",
  ],
  flags: FLAGS,
  positionals: [],
  help: () =>
    [
      `Usage: signfold read-link --read-token-env NAME[:COMPANY,COMPANY...] --url BASE
                          [--expires DURATION]

Print a link a person opens in a browser to see the live report of serve's
read API (docs/read-api.md) with no header to set: BASE/report?link=GRANT. The
grant is an HMAC-SHA-256, keyed by the read token, of its expiry and companies:
serve (or createReadHandler) checks it with the same token, nothing is stored.
Opening it sets a cookie (HttpOnly, SameSite=Lax, Secure over https, ending
with the link) and redirects to /report, so the address bar keeps no secret;
the cookie opens the read API's pages too. An expired or changed link is 401
with a page that says so. To revoke links, change the token: every link and
cookie made from it stops working. The expiry is on stderr.

Options:`,
      helpRows(FLAGS, ['read-token-env', 'url', 'expires', HELP_ROW], { width: 20 }),
      `
Exit codes: 0 printed, 2 usage error, or the variable unset or not a read token.`,
    ].join('\n'),
});
