/**
 * A CLI process that serves metrics (`pg work` or `react` with
 * `--metrics-port 0`), for the tests: started from the built CLI, found by
 * the `metrics listening on URL` line it prints, stopped by a real signal.
 */
import type { ChildProcess } from 'node:child_process';
import { startCli } from '../cli/cli-helpers.js';
import { eventually } from './eventually.js';

/** A running process and its metrics URL. */
export interface MetricsProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:PORT/metrics` */
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once it exited. */
  readonly exited: Promise<number | null>;
}

/** Runs `signfold ...args` and resolves once it printed where its metrics are (60 s at most). */
export const startMetricsProcess = async (
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<MetricsProcess> => {
  const { child, closed, stdout: output, stderr: errors } = startCli(args, env);
  const exited = closed.then(({ code }) => code);
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  const urlOf = (): string | undefined =>
    /^metrics listening on (http:\/\/\S+)$/m.exec(output())?.[1];
  await eventually(
    () => {
      if (ended) throw new Error(`exited before serving metrics:\n${output()}\n${errors()}`);
      return urlOf() !== undefined;
    },
    'the metrics line',
    { deadlineMs: 60_000 },
  );
  return {
    child,
    url: urlOf() as string,
    stdout: output,
    stderr: errors,
    exited,
  };
};
