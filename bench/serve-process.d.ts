/** Type declarations for `bench/serve-process.js` (plain ESM JavaScript), for the tests. */
import type { ChildProcess } from 'node:child_process';

/** The built CLI. */
export const CLI: string;

/** The port a `serve` output says it listens on, or undefined. */
export function listeningPort(text: string): number | undefined;

/** How a process ended. */
export interface ServeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** `performance.now()` when its output closed. */
  readonly at: number;
}

/** A listening `serve` process. */
export interface RunningServe {
  readonly child: ChildProcess;
  readonly port: number;
  /** `http://127.0.0.1:PORT/webhooks` */
  readonly url: string;
  /** `http://127.0.0.1:PORT` */
  readonly base: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<ServeExit>;
  /** Sends `signal` (default SIGTERM) unless it ended; resolves with how it ended. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<ServeExit>;
}

/** Starts `serve ...args` (`--port 0` unless given) and resolves once it listens. */
export function startServe(
  args: readonly string[],
  options?: { readonly env?: NodeJS.ProcessEnv; readonly startMs?: number },
): Promise<RunningServe>;

/** Runs `serve ...args` to its end (killed after `limitMs`). */
export function runServeToEnd(
  args: readonly string[],
  options?: { readonly env?: NodeJS.ProcessEnv; readonly limitMs?: number },
): Promise<{
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}>;
