/** The `--help` texts: one overview, one page per command. test/docs/cli-synopsis.test.ts holds README.md and docs/cli.md to them. */

/** `signfold --help`. */
export const OVERVIEW = `Usage: signfold <command> [options]

Fold e-signature webhook event logs (NDJSON) into projections.

Commands:
  replay LOG      replay a log and print a summary (or the projections as JSON)
  check LOG       lint a log: list bad lines and conflicts, exit 1 if any
  inspect LOG     show one sign request, its participants and its timeline
  validate FILE   validate a sign-request representation (JSON)
  report LOG      write a self-contained HTML report of a log (--out FILE)
  pg SUBCOMMAND   PostgreSQL: migrate, import LOG, work, rebuild, status, export, events, skip (see signfold pg --help)
  unlock LOG      remove the writer lock LOG.lock of a writer that is gone (see its --help)
  serve           receive webhook deliveries over HTTP into a log (--log FILE or --database URL)
  react LOG       run reactors on a log: effects with retries, parking and timers (--reactors MODULE)
  effects LOG     list reactor effects; effects retry|skip LOG (ID...|FILTER) for parked ones
  reconcile LOG   ask the service's API about open requests and repair what deliveries lost (--fetch MODULE)
  forget LOG      erase one person's names from LOG and what is kept beside it (or --database URL)
  emulate         a local e-signature service: signed webhooks to --to URL, a read API (--api-port)
  read-link       print a link that opens serve's live report in a browser (--read-token-env NAME)

Options:
  -h, --help      show help (also: signfold <command> --help, signfold help <command>)
  --version       print the version

Exit codes: 0 ok, 1 problems found (or halted, or not found), 2 usage or input error.
LOG is never modified; only unlock touches its writer lock (serve appends to --log FILE,
reconcile appends observation records, forget rewrites names in place);
react and effects keep reactor state beside it (LOG.reactors, LOG.reactors.lock).`;

/** Help of each command, by name. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  pg: `Usage: signfold pg migrate --database URL [--schema NAME] [--partitions N]
       signfold pg import LOG --database URL [--schema NAME]
       signfold pg work --database URL [--schema NAME] [--drain] [--batch-size N] [--poll-interval MS]
                        [--lease MS] [--worker-id ID] [--reactors MODULE] [--from end]
                        [--upcasters MODULE] [--metrics-port P] [--tracing MODULE]
       signfold pg rebuild --database URL [--schema NAME] [--upcasters MODULE] [--switch]
                           [--batch-size N] [--poll-interval MS] [--lease MS] [--worker-id ID]
       signfold pg status --database URL [--schema NAME] [--json]
       signfold pg export --database URL [--schema NAME]
       signfold pg events --database URL [--schema NAME]
       signfold pg skip --position N --database URL [--schema NAME] [--reason TEXT]
Every subcommand also takes [--connect-timeout SECONDS].

The PostgreSQL store and projection tables (needs the package pg; import also
needs pg-copy-streams). URL is a postgres:// connection URL (DATABASE_URL
stands in for a missing --database; its password is never printed); NAME the
schema (default signfold).

  --connect-timeout SECONDS   give up on a server that does not answer
                              within this time (1 to 86400, default 10)

  migrate   create or upgrade the schema (idempotent; refuses a newer schema)
            --partitions N       partitions of the projection, fixed at creation
                                 (1 to 1024, default 16)
  import    append a file log's records with COPY, in one transaction; lines
            whose delivery id is already stored are skipped
  work      project the stored events into the tables, batch by batch; with
            --drain exit once everything stored is projected, else follow new
            appends until SIGINT or SIGTERM
            --batch-size N       events per transaction (default 5000)
            --poll-interval MS   longest wait without a notification (default 5000)
            --lease MS           claim on a partition without renewal (default 10000)
            --worker-id ID       name in the lease rows (default host:pid:random)
            --reactors MODULE    also run these reactors: each batch enqueues
                                 their effects (and runs their SQL effects) in
                                 its transaction; effects are claimed and
                                 executed here; with --drain exit once none is
                                 ready or retrying
            --from end           reactors without a checkpoint start at the
                                 end of the log (default: at its start)
            --upcasters MODULE   rewrite records before decoding them (see
                                 signfold replay --help); each must keep the
                                 sign request a stored record names
            --metrics-port P     serve Prometheus /metrics on 127.0.0.1:P (0: any
                                 free port; prints "metrics listening on URL"):
                                 lag per partition, events, effects, attempts
                                 (see docs/cli.md#metrics)
            --tracing MODULE     OpenTelemetry spans of each batch, each record
                                 it folds and each effect attempt (see
                                 signfold serve --help)
            several workers share the partitions; one that stops loses them
            to the others within a lease and a quarter; one whose tables pg
            rebuild --switch replaced stops (exit 0, one line)
  rebuild   project the stored events again, with these upcasters, into
            NAME_rebuild beside the live tables (serve and readers go on);
            several share its partitions (--batch-size, --poll-interval,
            --lease, --worker-id as for work); without --switch exit once it
            has every event stored; a stopped rebuild is resumed by the next
            (one made with other upcasters is dropped and started over)
            --switch             once caught up, move the rebuilt tables in
                                 under NAME's names in one transaction (appends
                                 wait, each wait bounded; postponed and tried
                                 again when a bound runs out); the old tables
                                 go to NAME_retired, old workers stop, and
                                 reactors react once to each event applied
                                 only now
  status    each partition's owner, lease (or how long ago it expired),
            checkpoint, lag and last error (--json)
  export    print the tables as JSON: the templates, signRequests,
            participants and quarantine arrays of replay --json (same order,
            same shape), the checkpoint
  events    print the stored records (events, observations, bad lines) as a
            log file that replay reads, line N holding position N
  skip      quarantine the stored event at position N instead of projecting
            it: the way past an event a worker names when the database keeps
            refusing it (safe while workers run; see docs/postgres.md)
            --reason TEXT        shown in its quarantine message

Exit codes: 0 done, 2 usage, input or database error.`,
  replay: `Usage: signfold replay LOG [options]

Replay LOG (read-only) and print what it folds into: events processed, counts
by status of templates, sign requests and participants, quarantined records
(bad lines, invalid events, conflicts), checkpoint, elapsed time.

Options:
  --until N              stop after log position N (state as of N)
  --json                 print the projections, quarantine, stats and checkpoint as JSON
  --snapshot FILE        write a snapshot of the result to FILE (not after a halt;
                         never the log itself)
  --from-snapshot FILE   start from a snapshot and replay only the records after it
  --policy skip|halt     skip (default): quarantine bad records and go on;
                         halt: stop at the first one (exit 1)
  --upcasters MODULE     rewrite records before decoding them: MODULE is an ES
                         module whose default export is an array of upcasters
                         (defineUpcaster; see docs/engine.md#upcasters)
  -h, --help             show this help

Exit codes: 0 replayed, 1 halted (--policy halt), 2 usage or input error.`,
  check: `Usage: signfold check LOG [--strict] [--upcasters MODULE]

Lint LOG: print each bad line, invalid event and conflict as
  LOG:LINE: position P: reason
then a count. A torn last line (no newline, not JSON) is a problem too.

Options:
  --strict             also reject events carrying members no event type has
  --upcasters MODULE   rewrite records before decoding them (an array of
                       upcasters as default export; see signfold replay --help)
  -h, --help           show this help

Exit codes: 0 clean, 1 problems found, 2 usage or input error.`,
  inspect: `Usage: signfold inspect LOG --sign-request ID [--until N] [--upcasters MODULE]
       signfold inspect --database URL [--schema NAME] [--connect-timeout SECONDS]
                        --sign-request ID [--until N] [--upcasters MODULE]

Show a sign request (status, names, company, template, sender, deleted), its
participants (status, role, views, downloads) and the timeline of every event
that touched it (position, received at, type, participant, outcome).

Options:
  --sign-request ID   the sign request to show (required; any integer, e.g. -5)
  --until N           as of log position N
  --upcasters MODULE  rewrite records before decoding them (see signfold
                      replay --help); the timeline names the upcasters
  --database URL      read the events from PostgreSQL (signfold/postgres, needs
                      the package pg) instead of LOG
  --schema NAME       the schema of --database (default signfold)
  --connect-timeout SECONDS
                      give up on a server that does not answer within this
                      time (1 to 86400, default 10)
  -h, --help          show this help

Exit codes: 0 shown, 1 the log never mentions ID, 2 usage or input error.`,
  validate: `Usage: signfold validate FILE

Validate a sign-request representation (JSON; see docs/service-interface.md)
and print every problem as "path: message".

Options:
  -h, --help   show this help

Exit codes: 0 valid, 1 invalid (including not JSON), 2 usage or unreadable file.`,
  unlock: `Usage: signfold unlock LOG [--force]

Remove LOG.lock, the writer lock of a file log, when its writer is gone but
signfold cannot tell: a writer on another host or in another container (pid
namespace) is never presumed dead, so its lock stays until removed here. Also
removes a LOG.lock.break and scratch files left by crashed openers.

RISK: if that writer still runs, removing its lock lets a second writer in,
and writes still pending in the first (a stalled disk, a paused container)
land over the second's: acknowledged events are lost. Make sure it stopped.

A lock whose holder still runs on this host is kept (exit 1) unless --force.

Options:
  --force      also remove the lock of a process that runs on this host (when
               that pid is not a signfold writer)
  -h, --help   show this help

Exit codes: 0 removed (or not locked), 1 the holder runs on this host (kept),
2 usage or I/O error.`,
  report: `Usage: signfold report LOG --out FILE [--stuck-after DURATION] [--from TIME] [--to TIME]
                       [--now TIME] [--stale-after DURATION] [--upcasters MODULE]
       signfold report --database URL [--schema NAME] [--connect-timeout SECONDS]
                       --out FILE [--stuck-after DURATION] [--from TIME] [--to TIME]
                       [--now TIME] [--stale-after DURATION] [--upcasters MODULE]

Write a self-contained HTML page about LOG (read-only): overview, per-template
funnel and rates, timings and activity from receivedAt, stuck requests,
quarantine, companies. The page works offline and is the same for the same log
and the same --now.

Options:
  -o, --out FILE            where to write the page (required; replaced atomically,
                            never the log itself)
  --stuck-after DURATION    a request sent longer ago than this (before "now")
                            without a final event is stuck; e.g. 7d (default),
                            36h, 90m, 45s, 2w
  --from TIME, --to TIME    report on the requests sent in [from, to) by receivedAt
                            (ISO 8601: 2025-10-01 or 2025-10-01T08:00:00Z); events
                            before --from are folded, events from --to on are not read
  --now TIME                "now", which ages and stuck requests are measured
                            against (ISO 8601 as --from; default: the clock when the
                            report is made; --to instead when that is earlier);
                            may not be before the latest receivedAt read
  --stale-after DURATION    warn at the top of the page when the last delivery
                            arrived longer than this before "now" (default 1h)
  --upcasters MODULE        rewrite records before decoding them (see signfold
                            replay --help)
  --database URL            read the events from PostgreSQL (signfold/postgres,
                            needs the package pg) instead of LOG
  --schema NAME             the schema of --database (default signfold)
  --connect-timeout SECONDS give up on a server that does not answer within
                            this time (1 to 86400, default 10)
  -h, --help                show this help

Exit codes: 0 written, 2 usage or input error.`,
  emulate: `Usage: signfold emulate --to URL --secret-env NAME [--scheme hmac|standard-webhooks]
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

Options:
  --to URL                where to deliver, e.g. http://127.0.0.1:8080/webhooks
  --secret-env NAME       environment variable holding the signing secret: any
                          text under hmac; whsec_... (HMAC) or whsk_... (an
                          Ed25519 seed; its whpk_ public key is printed) under
                          standard-webhooks
  --scheme S              hmac (default: x-signature sha256=HEX, x-delivery-id,
                          as signfold serve verifies by default) or
                          standard-webhooks (webhook-id, webhook-timestamp,
                          webhook-signature)
  --seed N                seed of the stories and the faults (default 1)
  --requests N            sign requests to play (default 20)
  --templates N           templates, spread over the companies (default 3)
  --companies N           companies 1..N (default 2)
  --decline-ratio P       share of requests a participant declines (default 0.1)
  --signing S             parallel, sequential or mixed (default: each request
                          draws one)
  --rate N                deliveries started per second (default 0: no limit)
  --loss P                share of events never delivered (0 to 1, default 0)
  --duplicate P           share delivered twice under one delivery id
  --reorder P             share sent after later events (default 0: the
                          receiver sees the emitted order)
  --delay MS              a seeded wait of up to MS before each delivery
  --retries N             retries of a delivery (default 5)
  --timeout SECONDS       deadline of one attempt (default 5)
  --api-port PORT         serve the read API on 127.0.0.1:PORT (0: any free
                          port); prints "read API on http://127.0.0.1:PORT"
  --api-fail P            answer this share of read API requests 503, with
                          Retry-After: 1 (0 to 1, default 0)
  --record FILE           write one JSON line per event emitted, in order:
                          {"deliveryId", "event"}; the same seed and options
                          write the same bytes
  --scenario FILE         play these commands instead of a seeded story: one
                          JSON command a line (or a JSON array), as
                          docs/decider.md lists them; one the service refuses
                          stops it (exit 2), naming its line and the rule
  -h, --help              show this help

Exit codes: 0 done (or stopped by a signal), 2 usage or input error.`,
  reconcile: `Usage: signfold reconcile (LOG | --database URL) --fetch MODULE
                          [--open-longer-than DURATION | --sign-request ID...]
                          [--rate N] [--fetch-timeout SECONDS] [--dry-run] [--json]
                          [--upcasters MODULE] [--wait SECONDS]

Ask the service's API about sign requests and repair what lost deliveries left
behind: for each request the API shows further along than the log (completed,
signed...), append one observation record, which replay, pg work and the
reactors apply like the events it stands for. MODULE is an ES module whose
default export is async (signRequestId, { signal }) => the API's JSON for that
request (your team writes it; signfold has no client for the service's API).
A request whose fetch fails, times out or answers what does not decode is
reported and stored nowhere; the others go on. Running it again appends nothing.
On a file log it holds the writer lock; while 'signfold serve --log LOG' holds
it, reconcile reads LOG beside it and hands serve the observations to append
with its deliveries (one more line on stderr says so).

Options:
  --fetch MODULE                the fetch function (default export)
  --open-longer-than DURATION   ask about the open requests (draft or sent)
                                sent longer ago than this (default 24h)
  --sign-request ID             ask about this request (repeatable), open or not
  --rate N                      start at most N fetches a second (default 5)
  --fetch-timeout SECONDS       give up on one fetch after this (default 10)
  --dry-run                     list the differences, append nothing
  --json                        one JSON document: counts and each result
  --upcasters MODULE            rewrite records before decoding them, as replay
                                and pg work do (see signfold replay --help), so
                                the requests compared are those they fold
  --wait SECONDS                with LOG held by serve: how long serve may take
                                to take a request, or be seen working on it,
                                before reconcile gives up (default 10)
  --database URL                the PostgreSQL event store instead of LOG
  --schema NAME                 the schema of --database (default signfold)
  --connect-timeout SECONDS     give up on a server that does not answer within
                                this time (default 10)
  -h, --help                    show this help

Exit codes: 0 every request agrees or was repaired, 1 a fetch failed or a
difference cannot be repaired, 2 usage or input error.`,
  react: `Usage: signfold react LOG --reactors MODULE [--drain] [--from end] [--upcasters MODULE]
                      [--metrics-port P]
                      [--tracing MODULE]

Run reactors on a file log: call each reactor's react for every applied event
past its checkpoint, and execute the effects it returns (retries with backoff,
parking after maxAttempts, timers in event time). MODULE is an ES module whose
default export is an array of reactors (defineReactor). Reactor state (each
reactor's checkpoint and watermark, and the journal of effects) is kept in
LOG.reactors under the lock LOG.reactors.lock: one react per log at a time.
LOG itself is only read; serve may append to it meanwhile.

Options:
  --reactors MODULE  the reactors to run (one with SQL effects is refused:
                     those need PostgreSQL, signfold pg work --reactors)
  --drain            exit once every event is reacted to and no effect is due
                     or retrying (timers not yet due stay in the journal);
                     without it, follow appends until SIGINT or SIGTERM
  --from end         a reactor without a checkpoint starts at the end of the
                     log (default: at its start; timers wait until it has read
                     the whole log, so history fires none that it cancels)
  --upcasters MODULE rewrite records before decoding them (see signfold replay
                     --help): reactors react to the events they make
  --metrics-port P   serve Prometheus /metrics on 127.0.0.1:P (0: any free
                     port; prints "metrics listening on URL" on stdout): lag,
                     events, effects, attempts, next timer (docs/cli.md#metrics);
                     a port in use is exit 2
  --tracing MODULE   OpenTelemetry spans of each record projected and each
                     effect attempt (see signfold serve --help)
  -h, --help         show this help

SIGINT/SIGTERM: no new effect starts; running ones get 10 s to finish; the
journal is written; exit 0. An effect cut short runs again, with the same
idempotency key.

Exit codes: 0 drained or stopped, 2 usage error, bad module, lock held by
another react, or I/O error.`,
  'read-link': `Usage: signfold read-link --read-token-env NAME[:COMPANY,COMPANY...] --url BASE
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

Options:
  --read-token-env NAME[:COMPANY,COMPANY...]
                      the environment variable holding a read token that serve
                      is given (the same value as its --read-token-env); with
                      companies, the link sees only those (some of the token's),
                      else all the token's
  --url BASE          where serve answers, as the person's browser reaches it,
                      e.g. https://reports.example.com
  --expires DURATION  how long the link works: 90m, 24h, 7d, ... (default 24h,
                      at most 31d)
  -h, --help          show this help

Exit codes: 0 printed, 2 usage error, or the variable unset or not a read token.`,
  forget: `Usage: signfold forget (LOG | --database URL) (--participant ID | --user ID | --name TEXT)...
                       [--company ID] [--dry-run] [--json] [--wait SECONDS]
With --database, it also takes [--schema NAME] [--connect-timeout SECONDS] [--vacuum].

Erase one person's names (GDPR article 17) from everything signfold stores,
replacing each by one pseudonym (forgotten- and 16 random hex digits, reused
for a person forgotten before), and record the erasure in a ledger that holds
ids and counts, never a name (LOG.erasures, or the erasures table). Every id
and name given is the same person:
  --participant ID  the participant name of every event and document of ID
  --user ID         the owner and sender names of every event of user ID
  --name TEXT       every person-name member equal to TEXT (after Unicode
                    NFC), and every occurrence of TEXT in stored text that is
                    no valid event (bad lines, invalid events, effects)
Names found for the ids are also erased from sign-request and template names,
bad lines, reactor effects and the quarantine. A file log is rewritten in place
(positions, delivery ids and every other byte kept; a kill leaves the old file
or the new, and running forget again finishes), with its reactor journal, torn
tails and the snapshots of it in its directory; it needs react stopped, and the
log's writer: while 'signfold serve --log LOG' holds it, serve runs the same
forget, its appends held back meanwhile. Later deliveries for a forgotten id are stored with the
pseudonym already. What forget cannot reach (backups, copies, dead rows until
VACUUM) is in docs/privacy.md.

Options:
  --company ID  only records of company ID
  --dry-run     count what would change; change nothing (no lock is taken)
  --json        print the report as JSON: {"erasure","pseudonym","reused",
                "dryRun","participantIds","userIds","typedNames","foundNames",
                "counts":{PLACE:N},"remaining":[FILE],"notes":[TEXT]}
  --wait SECONDS
                with LOG held by serve: how long serve may take to take the
                request, or be seen working on it, before forget gives up
                (default 10)
  --vacuum      with --database: VACUUM the rewritten tables afterwards
  --database URL
                a PostgreSQL schema instead of LOG (as for signfold pg);
                safe while serve and pg work run
  -h, --help    show this help

Exit codes: 0 forgotten, 1 other files beside LOG still hold a name (listed:
a report, an export, a snapshot forget cannot fold again), 2 usage, I/O or
database error, or the log is in use.`,
  effects: `Usage: signfold effects (LOG | --database URL) [--json]
       signfold effects retry (LOG | --database URL) (ID... | FILTER...) [--dry-run] [--wait SECONDS] [--json]
       signfold effects skip (LOG | --database URL) (ID... | FILTER...) [--dry-run] [--wait SECONDS] [--json]
With --database, every form also takes [--schema NAME] [--connect-timeout SECONDS].

List the reactor effects of a file log (counts per reactor, the parked
effects with their last error, and the timers with when they are due and
their key), or act on parked effects: retry runs them again with a fresh
round of attempts, skip drops them. Name them by id, or by a filter over the
parked effects (every filter given must hold):
  --reactor NAME   the parked effects of reactor NAME
  --error TEXT     the parked effects whose last error contains TEXT
  --parked, --all  every parked effect (say one when no other filter narrows)
--dry-run says what would change and changes nothing. While signfold react
runs on LOG, retry and skip go through it: it applies the change, journals
it and answers; one that does not take the request within --wait SECONDS
(default 10, and as long again for its answer; a stopped react) gets it
withdrawn, and nothing changes. With --database URL, the effects of a
PostgreSQL schema (signfold pg work --reactors); there retry and skip work
while workers run.

Options:
  --json       print JSON: {"reactors":[{"name","pending","parked","done"}],
               "parked":[{"id","reactor","idempotencyKey","attempts",
               "lastError","effect"}],"timers":[{"id","reactor","key",
               "dueAt","idempotencyKey"}]}; for retry and skip
               {"changed":[ID...],"refused":[{"id","reason"}]}, with
               "dryRun":true for a dry run
  --database URL
               a PostgreSQL schema instead of LOG (as for signfold pg)
  -h, --help   show this help

Exit codes: 0 ok, 1 some ids refused (unknown, not parked, or an invalid
effect that can only be skipped), 2 usage or I/O error, or a running react
that did not answer in time.`,
  serve: `Usage: signfold serve (--log FILE | --database URL) [--port 8080] [--host 127.0.0.1]
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

Options:
  --log FILE              append to this file log (created if missing); one serve
                          per file log: a second one is refused
  --database URL          append to PostgreSQL (needs the package pg; run
                          signfold pg migrate first); serves may share it
  --schema NAME           the schema of --database (default signfold)
  --connect-timeout SECONDS
                          give up on a database that does not answer within this
                          time (1 to 86400, default 10)
  --port N                port to listen on (default 8080; 0: any free port)
  --host H                address to listen on (default 127.0.0.1)
  --secret-env NAME[:COMPANY,COMPANY...]
                          environment variable holding a secret (repeatable: any
                          of them verifies, for rotation; default
                          SIGNFOLD_WEBHOOK_SECRET); empty values do not count.
                          With companies, the secret stores only their events
                          (another company's: 403, not stored)
  --scheme S              hmac (default) or standard-webhooks (headers
                          webhook-id, webhook-timestamp, webhook-signature;
                          secrets whsec_..., or whpk_... Ed25519 public keys;
                          webhook-id is the delivery id and is required)
  --signature-header H    hmac: header carrying the signature (default x-signature)
  --signature-encoding E  hmac: hex (default) or base64
  --signature-prefix P    hmac: optional prefix of each value (default sha256=)
  --timestamp-header H    hmac: the signed content is TIMESTAMP.BODY, with the
                          timestamp (whole seconds) from this header
  --timestamp-tolerance SECONDS
                          refuse (401) a timestamp further than this from now
                          (1 to 86400, default 300)
  --delivery-header H     hmac: header carrying the delivery id (default
                          x-delivery-id)
  --require-delivery-id   refuse (400) a delivery without a delivery id
  --max-body BYTES        largest body accepted (1 to 262144, default 262144)
  --insecure-no-signature accept deliveries without verifying them (no secret
                          may be set then)
  --append-timeout SECONDS
                          answer 503 to a delivery whose append has not
                          committed within this time (1 to 60, default 5); the
                          sender delivers it again, stored once by its id
  --reactors MODULE       with --log: also run these reactors in this process,
                          as signfold react LOG does (gauges
                          signfold_effects_pending and _parked on /metrics);
                          with --database they run in signfold pg work
  --upcasters MODULE      with --reactors: rewrite records before the reactors'
                          projector decodes them (deliveries are stored as
                          received); with --database: signfold pg work --upcasters
  --read-token-env NAME:COMPANY,COMPANY...
                          serve the read API and live page to the bearer token
                          in this environment variable (at least 16
                          characters), showing only these companies' records;
                          repeatable, one variable per client
  --tracing MODULE        OpenTelemetry spans of each delivery and its append
                          (and of the --reactors' work): MODULE is an ES module
                          whose default export is a TracerProvider (or a
                          function returning one); needs the package
                          @opentelemetry/api; flushed at exit (docs/tracing.md)
  -h, --help              show this help

Exit codes: 0 stopped by a signal, 1 shutdown took longer than 10 s, 2 usage,
configuration, storage or listen error.`,
};
