/**
 * `signfold serve` as a real process for the tests: started on 127.0.0.1 and
 * a free port (`--port 0`, the port read from its listening line), its
 * stderr collected as JSON lines, stopped by a real signal.
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { startServe as startServeProcess } from '../../../bench/serve-process.js';

/** The secret the tests sign with. */
export const SECRET = 'test-secret-0123456789';

/** The environment of a serve with {@link SECRET} in the default variable. */
export const secretEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  SIGNFOLD_WEBHOOK_SECRET: SECRET,
  ...extra,
});

/** How a serve process ended. */
export interface ServeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running serve. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** The complete stderr lines so far (from character `from` on), parsed: each must be JSON. */
  logLines(from?: number): Record<string, unknown>[];
  /** Resolves when the process exits. */
  readonly exited: Promise<ServeExit>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<ServeExit>;
}

/** The serves {@link startServe} started that have not exited yet. */
const running = new Set<ServeProcess>();

/**
 * SIGKILLs every serve {@link startServe} started that is still running, and
 * waits for each to exit. For `afterEach`: a test that fails before it stops
 * its serve (an assertion in the middle) must not leave the process behind,
 * holding a port, a database connection or a lock after the run.
 */
export const killLeftoverServes = async (): Promise<void> => {
  const left = [...running];
  running.clear();
  await Promise.all(
    left.map((serve) => {
      if (serve.child.exitCode === null && serve.child.signalCode === null) {
        serve.child.kill('SIGKILL');
      }
      return serve.exited;
    }),
  );
};

/**
 * Starts `signfold serve ...args --port 0` and resolves once it listens;
 * rejects with its output if it exits first or does not listen within 10 s.
 * The process itself is bench/serve-process.js's (the one the load tests and
 * the benchmark start); this adds the JSON log lines the CLI tests read.
 * A variable set to `undefined` in `env` is left out of the process's environment.
 */
export const startServe = async (
  args: readonly string[],
  env: NodeJS.ProcessEnv = secretEnv(),
): Promise<ServeProcess> => {
  const serve = await startServeProcess(args, { env, startMs: 60_000 });
  const exited: Promise<ServeExit> = serve.exited.then(({ code, signal }) => ({
    code,
    signal,
    stdout: serve.stdout(),
    stderr: serve.stderr(),
  }));
  const started: ServeProcess = {
    child: serve.child,
    url: serve.base,
    stderr: serve.stderr,
    logLines: (from = 0) => {
      const stderr = serve.stderr();
      return stderr
        .slice(from, stderr.lastIndexOf('\n') + 1)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    exited,
    stop: async (signal = 'SIGTERM') => {
      await serve.stop(signal);
      return exited;
    },
  };
  running.add(started);
  void exited.then(() => running.delete(started));
  return started;
};

/** The `x-signature` header value for `body`: the hex HMAC-SHA256 the contract names. */
export const signatureOf = (body: string | Uint8Array, secret = SECRET): string =>
  createHmac('sha256', secret).update(body).digest('hex');

/** POSTs `body` to `/webhooks`, signed with `secret` (unless `null`), with `headers`. */
export const deliver = (
  url: string,
  body: string,
  headers: Record<string, string> = {},
  secret: string | null = SECRET,
): Promise<Response> =>
  fetch(`${url}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(secret === null ? {} : { 'x-signature': signatureOf(body, secret) }),
      ...headers,
    },
    body,
  });

/** The value of one sample of `/metrics` (`name{labels}`), or `undefined` when absent. */
export const metricValue = async (url: string, sample: string): Promise<number | undefined> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
};

/** Polls `check` until it holds (see test/support/eventually.ts: a 30 s deadline). */
export { eventually } from '../../support/eventually.js';

/** A template event body as the service sends it. */
export const eventBody = (templateId: number): string =>
  JSON.stringify({
    type: 'template-activated',
    companyId: 1,
    templateId,
    templateName: 'NDA',
    ownerId: 10,
    ownerName: 'Olive Owner',
  });
