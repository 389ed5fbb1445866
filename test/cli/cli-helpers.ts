/** Shared helpers of the CLI tests: running the built CLI, temp dirs, fixture logs. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { run } from '../../src/cli/run.js';

/** The repository root (tests run from it, but do not rely on the cwd). */
export const ROOT = resolve(import.meta.dirname, '../..');
/** The built entry point: the tests exercise exactly what `bin` installs. */
export const CLI = join(ROOT, 'dist/cli/main.js');

/** What one CLI run produced. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A CLI process started in the background (see {@link startCli}). */
export interface Running {
  readonly child: ChildProcess;
  /** Its exit code once it closed (`null` after a signal), with its output; rejects if it could not start. */
  readonly closed: Promise<CliRun>;
  /** Its stdout so far. */
  stdout(): string;
  /** Its stderr so far. */
  stderr(): string;
}

/** Starts `node dist/cli/main.js ...args` in `cwd` (with `env`, default this process's), collecting its output. */
export const startCli = (
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = ROOT,
): Running => {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const closed = new Promise<CliRun>((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
  return { child, closed, stdout: () => stdout, stderr: () => stderr };
};

/** Runs `node dist/cli/main.js ...args` in `cwd` (with `env`, default this process's), as its own process. */
export const runBinary = (
  args: readonly string[],
  cwd: string = ROOT,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CliRun> => startCli(args, env, cwd).closed;

/**
 * The commands that run until stopped and take the process's signals and exit (`serve`,
 * `emulate`, a following `pg work` or `react`): they always get a process of their own.
 * `pg work --drain` and `react --drain` end by themselves, so they run here like any other
 * command; a test about their process (a kill, several workers as processes) starts one with
 * {@link runBinary} or {@link startCli}.
 */
const ownsItsProcess = (args: readonly string[]): boolean =>
  args[0] === 'serve' ||
  args[0] === 'emulate' ||
  (args[0] === 'react' && !args.includes('--drain')) ||
  (args[0] === 'pg' && args[1] === 'work' && !args.includes('--drain'));

/**
 * Runs the CLI on `args` and collects its output: in this process (the same `run` the binary
 * calls, on in-memory streams, with the real clock), which spares a process start (about 0.4 s of
 * CPU) per run; as a process of its own (see {@link runBinary}) when it needs one: another `cwd`,
 * a command that owns its process, or an `env` other than the one a run in this process holds
 * right now. A given `env` is this process's for the length of the run (see {@link lendEnv}).
 * A test about the binary itself (its exit on a signal, a closed pipe, what `bin` installs)
 * calls {@link runBinary} or {@link startCli}.
 */
export const runCli = (
  args: readonly string[],
  cwd: string = ROOT,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CliRun> => {
  if (cwd !== ROOT || process.cwd() !== ROOT || ownsItsProcess(args)) {
    return runBinary(args, cwd, env);
  }
  const lent = lendEnv(env);
  if (lent === undefined) return runBinary(args, cwd, env);
  return runInProcess(args, () => performance.now()).finally(lent);
};

/** The environment the runs in this process hold now: how many hold it, and how it is given back. */
interface Held {
  readonly env: Readonly<Record<string, string>>;
  users: number;
  readonly restore: () => void;
}

let held: Held | undefined;

/** `env` as a child process would get it: variables set to `undefined` are left out. */
const asChildSees = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/** Whether `a` and `b` hold the same variables with the same values. */
const sameEnv = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([name, value]) => b[name] === value);

/** The variables Node reads as it starts (`NODE_OPTIONS` and the like), which a running process ignores. */
const forTheRuntime = (name: string): boolean =>
  name.startsWith('NODE_') || name === 'TZ' || name === 'UV_THREADPOOL_SIZE';

/** Whether `a` and `b` agree on every variable {@link forTheRuntime}. */
const sameRuntime = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  [...Object.keys(a), ...Object.keys(b)].filter(forTheRuntime).every((name) => a[name] === b[name]);

/**
 * Makes `env` this process's environment until every run that asked for it has called the
 * returned function: the fixtures a command loads (reactors, fetch modules) read their settings
 * from it, as they would in a process of their own. `undefined` when a run here holds another
 * environment at the moment, or when `env` sets Node itself up otherwise: that run needs a
 * process of its own.
 */
const lendEnv = (env: NodeJS.ProcessEnv): (() => void) | undefined => {
  const wanted = asChildSees(env);
  if (!sameRuntime(wanted, asChildSees(process.env))) return undefined;
  if (held !== undefined) return sameEnv(held.env, wanted) ? hold(held) : undefined;
  const saved = { ...process.env };
  if (env !== process.env) replaceEnv(wanted);
  held = {
    env: wanted,
    users: 0,
    restore: env === process.env ? () => undefined : () => replaceEnv(saved),
  };
  return hold(held);
};

/** One user more of `holding`; the returned function gives it back, the last one restoring. */
const hold = (holding: Held): (() => void) => {
  holding.users += 1;
  return () => {
    holding.users -= 1;
    if (holding.users > 0) return;
    holding.restore();
    held = undefined;
  };
};

/** Makes `process.env` hold exactly `next`. */
const replaceEnv = (next: Readonly<Record<string, string | undefined>>): void => {
  for (const name of Object.keys(process.env)) {
    if (!(name in next)) delete process.env[name];
  }
  for (const [name, value] of Object.entries(next)) {
    if (value !== undefined) process.env[name] = value;
  }
};

/** `run` in this process on in-memory streams, with the clock `now`. */
const runInProcess = async (argv: readonly string[], now: () => number): Promise<CliRun> => {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    now,
    debug: process.env.SIGNFOLD_DEBUG === '1',
  });
  return { code, stdout, stderr };
};

/**
 * Runs the CLI in this process with a clock stopped at 0 (elapsed times print as 0): for
 * properties with many cases whose output is compared.
 */
export const runCliHere = (argv: readonly string[]): Promise<CliRun> => runInProcess(argv, () => 0);

const created: string[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'signfold-cli-'));
  created.push(dir);
  return dir;
};

/** Removes every directory {@link tempDir} created. */
export const removeTempDirs = async (): Promise<void> => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
};

/** Writes `lines` (each followed by a newline) to `name` in a fresh temp dir; returns the path. */
export const writeFixture = async (name: string, lines: readonly string[]): Promise<string> => {
  const path = join(await tempDir(), name);
  await writeFile(path, lines.map((line) => `${line}\n`).join(''));
  return path;
};

const COMMON = { companyId: 1, ownerId: 10, ownerName: 'Olive Owner' };
const TEMPLATE = { templateId: 100, templateName: 'NDA' };
const SENDER = { senderId: 20, senderName: 'Sam Sender' };
const NAMES: Readonly<Record<number, string>> = { 5: 'Ada Lovelace', 6: 'Alan Turing' };

/** A template event as the service sends it. */
export const templateEvent = (type: string, extra: object = {}): object => ({
  type,
  ...COMMON,
  ...TEMPLATE,
  ...extra,
});

/** A sign-request event; `withTemplate` for the types that carry template members. */
export const requestEvent = (
  type: string,
  signRequestId: number,
  withTemplate: boolean,
  extra: object = {},
): object => ({
  type,
  ...COMMON,
  signRequestId,
  signRequestName: `Request ${signRequestId}`,
  ...(withTemplate ? TEMPLATE : {}),
  ...SENDER,
  ...extra,
});

/** A participant event (name spelled `partcipantName`, as the service does). */
export const participantEvent = (
  type: string,
  signRequestId: number,
  participantId: number,
  withTemplate: boolean,
): object => ({
  ...requestEvent(type, signRequestId, withTemplate),
  participantId,
  partcipantName: NAMES[participantId] ?? `Participant ${participantId}`,
  roleId: 7,
  roleName: 'Signer',
});

/** A line as the file log writes it. */
export const envelope = (position: number, event: object, deliveryId?: string): string =>
  JSON.stringify({
    position,
    receivedAt: new Date(Date.UTC(2025, 0, 1, 0, 0, position)).toISOString(),
    ...(deliveryId === undefined ? {} : { deliveryId }),
    event,
  });

/** A bare event line. */
export const bare = (event: object): string => JSON.stringify(event);

/**
 * The main fixture: bare and envelope lines (positions = line numbers), a
 * line that is not JSON (4) and a conflict (7). Expected result: 1 template
 * (active), sign request 1000 completed with participants 5 and 6 signed,
 * sign request 1001 deleted; 10 applied, 1 invalid, 1 conflict.
 */
export const MIXED_LOG: readonly string[] = [
  bare(templateEvent('template-activated')),
  envelope(2, requestEvent('sign-request-sent', 1000, true), 'd-2'),
  bare(participantEvent('participant-sent', 1000, 5, true)),
  '{"type":"participant-viewed","companyId":1,',
  envelope(5, participantEvent('participant-viewed', 1000, 5, false), 'd-5'),
  envelope(6, participantEvent('participant-sent', 1000, 6, true)),
  // Re-sent with another template while still `sent`: a reference-mismatch conflict.
  bare(requestEvent('sign-request-sent', 1000, true, { templateId: 200 })),
  bare(participantEvent('participant-signed', 1000, 5, true)),
  bare(requestEvent('sign-request-sent', 1001, true)),
  envelope(10, participantEvent('participant-signed', 1000, 6, true)),
  bare(requestEvent('sign-request-completed', 1000, true)),
  bare(requestEvent('sign-request-deleted', 1001, false)),
];

/** {@link MIXED_LOG} without its two bad records: a clean log. */
export const CLEAN_LOG: readonly string[] = MIXED_LOG.filter(
  (_, index) => index !== 3 && index !== 6,
);

/**
 * A log for the stuck-request views: request 1 sent on day 0 and still open
 * (its participant sent on day 1), and request 2 sent ten days later, as
 * envelopes dated at midnight UTC from 2025-01-01.
 */
export const writeStuckLog = (name: string): Promise<string> => {
  const at = (day: number, event: object) =>
    JSON.stringify({
      position: day + 1,
      receivedAt: new Date(Date.UTC(2025, 0, 1 + day)).toISOString(),
      event,
    });
  return writeFixture(name, [
    at(0, requestEvent('sign-request-sent', 1, true)),
    at(1, participantEvent('participant-sent', 1, 5, true)),
    at(10, requestEvent('sign-request-sent', 2, true)),
  ]);
};

/** Parses a summary line `Label:   value` into the value. */
export const summaryValue = (stdout: string, label: string): string => {
  const line = stdout.split('\n').find((l) => l.startsWith(`${label}:`));
  if (line === undefined) throw new Error(`no "${label}:" line in:\n${stdout}`);
  return line.slice(label.length + 1).trim();
};
