/**
 * `signfold emulate`: a local e-signature service (src/emulator/). It plays
 * seeded stories, sends each event as a signed delivery to `--to`, answers
 * its read API with `--api-port`, and writes what it emitted with `--record`.
 * Nothing it prints quotes data: counts, a URL, a public key.
 */

import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from '../../core/decider/command.js';
import { type Emulator, startEmulator } from '../../emulator/emulator.js';
import { parseScenario } from '../../emulator/scenario.js';
import type { DeliveryCounts } from '../../emulator/sender.js';
import { standardSigningKey } from '../../webhooks/sign-standard.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { type ParsedCommand, parseCommand } from '../define-command.js';
import { EMULATE_COMMAND } from '../definitions/emulate.js';
import { awaitStopSignal } from '../stop-signals.js';

const summaryOf = (counts: DeliveryCounts): string =>
  `sent ${counts.sent}, acknowledged ${counts.acknowledged}, retried ${counts.retried}, lost ${counts.lost}, duplicated ${counts.duplicated}, reordered ${counts.reordered}, given up ${counts.givenUp}`;

/**
 * The secret `--secret-env` names, checked before anything is sent: a
 * delivery signed with nothing, or a Standard Webhooks key that is none,
 * would only be refused by the receiver, one delivery at a time.
 */
const signingSecret = (
  secretName: string | undefined,
  scheme: 'hmac' | 'standard-webhooks' | undefined,
): string => {
  if (secretName === undefined) throw usageError('--to needs --secret-env NAME to sign with');
  const secret = process.env[secretName] ?? '';
  if (secret === '') {
    throw new CliError(`no secret: set ${secretName} to the secret the receiver verifies with`);
  }
  if (scheme === 'standard-webhooks') {
    try {
      standardSigningKey(secret, secretName);
    } catch (cause) {
      throw usageError(cause instanceof Error ? cause.message : String(cause));
    }
  }
  return secret;
};

/** The commands of `--scenario FILE`, which replaces the seeded story (and so its flags). */
const scenarioOf = async ({
  values,
  given,
}: ParsedCommand<typeof EMULATE_COMMAND.flags>): Promise<Command[] | undefined> => {
  const scenarioFile = values.scenario;
  if (scenarioFile === undefined) return undefined;
  const story = (
    ['requests', 'templates', 'companies', 'decline-ratio', 'signing'] as const
  ).filter(given);
  if (story.length > 0) {
    throw usageError(`--scenario plays its own story: drop --${story.join(', --')}`);
  }
  const text = await readFile(scenarioFile, 'utf8').catch((cause: unknown) => {
    throw new CliError(
      `cannot read --scenario: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  });
  try {
    return parseScenario(text);
  } catch (cause) {
    throw new CliError(`--scenario ${cause instanceof Error ? cause.message : String(cause)}`);
  }
};

/** `signfold emulate [options]`. */
export const emulateCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const parsed = parseCommand(EMULATE_COMMAND, args);
  const { values } = parsed;
  const { to, apiPort, record, scheme } = values;
  if (to === undefined && apiPort === undefined && record === undefined) {
    throw usageError(
      'nothing to do: give --to URL (and --secret-env NAME), --api-port or --record',
    );
  }
  const secret = to === undefined ? undefined : signingSecret(values.secretEnv, scheme);
  const scenario = await scenarioOf(parsed);
  const options = {
    ...(scenario === undefined ? {} : { scenario }),
    ...(to === undefined || secret === undefined ? {} : { to, secret }),
    ...(scheme === undefined ? {} : { scheme }),
    seed: values.seed,
    requests: values.requests,
    templates: values.templates,
    companies: values.companies,
    declineRatio: values.declineRatio,
    signing: values.signing,
    rate: values.rate,
    loss: values.loss,
    duplicate: values.duplicate,
    reorder: values.reorder,
    delayMs: values.delay,
    retries: values.retries,
    timeoutMs: values.timeout * 1000,
    ...(apiPort === undefined ? {} : { apiPort }),
    apiFailure: values.apiFail,
  };

  const stop = awaitStopSignal();
  let lastProgress = Number.NEGATIVE_INFINITY;
  let total = 0;
  let emulator: Emulator | undefined;
  try {
    emulator = await startEmulator({
      ...options,
      onProgress: (counts) => {
        const at = io.now();
        if (at - lastProgress < 1000) return;
        lastProgress = at;
        writeLines(io.stderr, [
          `emulate: ${counts.sent} of ${total} deliveries sent, ${counts.acknowledged} acknowledged, ${counts.retried} retried, ${counts.givenUp} given up`,
        ]);
      },
    }).catch((cause: unknown) => {
      throw new CliError(
        `cannot start: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`,
      );
    });
    const running = emulator;
    total = running.planned;
    if (record !== undefined) await writeFile(record, running.record());
    if (running.apiUrl !== undefined) writeLines(io.stdout, [`read API on ${running.apiUrl}`]);
    if (running.publicKey !== undefined) {
      writeLines(io.stderr, [`emulate: receivers verify with the public key ${running.publicKey}`]);
    }
    writeLines(io.stderr, [
      `emulate: ${scenario === undefined ? `seed ${options.seed}, ${options.requests} sign requests` : `scenario of ${scenario.length} commands`}, ${running.events.length} events${to === undefined ? ' (nothing sent: no --to)' : ''}`,
    ]);
    const counts = await Promise.race([running.delivered, stop.requested.then(() => undefined)]);
    if (to !== undefined) {
      writeLines(io.stderr, [
        `emulate: ${counts === undefined ? 'stopped: ' : ''}${summaryOf(counts ?? (await stopAndCount(running)))}`,
      ]);
    }
    if (running.apiUrl !== undefined && stop.signal() === undefined) await stop.requested;
    return EXIT.ok;
  } finally {
    stop.release();
    await emulator?.stop();
  }
};

const stopAndCount = async (emulator: Emulator): Promise<DeliveryCounts> => {
  await emulator.stop();
  return emulator.delivered;
};
