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
import type { SigningOrder } from '../../emulator/story.js';
import { standardSigningKey } from '../../webhooks/sign-standard.js';
import {
  choiceFlag,
  expectPositionals,
  integerFlag,
  parseCommandArgs,
  stringFlag,
} from '../args.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { EMULATE_COMMAND } from '../definitions/emulate.js';
import { optionTableOf } from '../flags.js';
import { awaitStopSignal } from '../stop-signals.js';

/** The flags' table for `parseArgs`, from the definition. */
const OPTIONS = optionTableOf(EMULATE_COMMAND.flags);

/** Largest story a command line asks for: a bound on memory, not a product limit. */
const MAX_REQUESTS = 100_000;

/** A share from 0 to 1, written as a decimal. */
const shareFlag = (flag: string, value: string): number => {
  const parsed = /^(0|1|0?\.\d+|1\.0+)$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= 0 && parsed <= 1)) {
    throw usageError(`${flag} must be a number from 0 to 1 (got '${value}')`);
  }
  return parsed;
};

const boundedInteger = (flag: string, value: string, min: number, max: number): number => {
  const parsed = integerFlag(flag, value);
  if (parsed < min || parsed > max) {
    throw usageError(`${flag} must be from ${min} to ${max} (got '${value}')`);
  }
  return parsed;
};

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
const scenarioOf = async (
  flag: (name: string) => string | undefined,
): Promise<Command[] | undefined> => {
  const scenarioFile = flag('scenario');
  if (scenarioFile === undefined) return undefined;
  const story = ['requests', 'templates', 'companies', 'decline-ratio', 'signing'].filter(
    (name) => flag(name) !== undefined,
  );
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
  const parsed = parseCommandArgs(args, OPTIONS);
  expectPositionals(parsed.positionals, []);
  const flag = (name: string): string | undefined => stringFlag(parsed, name);
  const number = <T>(name: string, read: (flag: string, value: string) => T): T | undefined => {
    const value = flag(name);
    return value === undefined ? undefined : read(`--${name}`, value);
  };
  const to = flag('to');
  const apiPort = number('api-port', (f, v) => boundedInteger(f, v, 0, 65_535));
  const record = flag('record');
  if (to === undefined && apiPort === undefined && record === undefined) {
    throw usageError(
      'nothing to do: give --to URL (and --secret-env NAME), --api-port or --record',
    );
  }
  if (to !== undefined && !/^https?:\/\//.test(to)) {
    throw usageError('--to must be an http:// or https:// URL');
  }
  const scheme = number('scheme', (f, v) =>
    choiceFlag<'hmac' | 'standard-webhooks'>(f, v, ['hmac', 'standard-webhooks']),
  );
  const secret = to === undefined ? undefined : signingSecret(flag('secret-env'), scheme);
  const scenario = await scenarioOf(flag);
  const options = {
    ...(scenario === undefined ? {} : { scenario }),
    ...(to === undefined || secret === undefined ? {} : { to, secret }),
    ...(scheme === undefined ? {} : { scheme }),
    seed: number('seed', (f, v) => boundedInteger(f, v, 0, 2 ** 32 - 1)) ?? 1,
    requests: number('requests', (f, v) => boundedInteger(f, v, 0, MAX_REQUESTS)) ?? 20,
    templates: number('templates', (f, v) => boundedInteger(f, v, 1, 1000)) ?? 3,
    companies: number('companies', (f, v) => boundedInteger(f, v, 1, 1000)) ?? 2,
    declineRatio: number('decline-ratio', shareFlag) ?? 0.1,
    signing:
      number('signing', (f, v) =>
        choiceFlag<SigningOrder>(f, v, ['parallel', 'sequential', 'mixed']),
      ) ?? 'mixed',
    rate: number('rate', (f, v) => boundedInteger(f, v, 0, 100_000)) ?? 0,
    loss: number('loss', shareFlag) ?? 0,
    duplicate: number('duplicate', shareFlag) ?? 0,
    reorder: number('reorder', shareFlag) ?? 0,
    delayMs: number('delay', (f, v) => boundedInteger(f, v, 0, 60_000)) ?? 0,
    retries: number('retries', (f, v) => boundedInteger(f, v, 0, 100)) ?? 5,
    timeoutMs: (number('timeout', (f, v) => boundedInteger(f, v, 1, 600)) ?? 5) * 1000,
    ...(apiPort === undefined ? {} : { apiPort }),
    apiFailure: number('api-fail', shareFlag) ?? 0,
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
