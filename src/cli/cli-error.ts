/**
 * Exit codes and the error type every command throws to stop with a one-line
 * message. `run` turns a {@link CliError} into `signfold: <message>` on
 * stderr and its exit code; anything else thrown becomes exit 2 as well, so a
 * user never sees a stack trace.
 */

/** The process exit codes of `signfold` (documented in `docs/cli.md`). */
export const EXIT = {
  /** The command did what was asked and found nothing wrong. */
  ok: 0,
  /**
   * The command ran, and the answer is "no": `check` found problems,
   * `validate` found an invalid representation, `replay --policy halt`
   * halted, `inspect` did not find the sign request.
   */
  findings: 1,
  /** The command could not run: bad usage, missing or unreadable input, I/O failure. */
  failure: 2,
} as const;

/** One of the {@link EXIT} codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure to report as one line on stderr, with its exit code (2 unless said otherwise). */
export class CliError extends Error {
  /** The code the process exits with. */
  readonly exitCode: ExitCode;
  /** Whether to suggest `--help` (usage mistakes only). */
  readonly usage: boolean;

  /** `message` must be a single line without the `signfold: ` prefix. */
  constructor(message: string, options: { exitCode?: ExitCode; usage?: boolean } = {}) {
    super(message);
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? EXIT.failure;
    this.usage = options.usage ?? false;
  }
}

/** A usage mistake (wrong flag, missing argument): exit 2 with a pointer to `--help`. */
export const usageError = (message: string): CliError => new CliError(message, { usage: true });

/**
 * A one-line description of anything thrown, for `signfold: unexpected
 * error: …`. Never throws itself: the value may be `null`, a string, an object
 * without a prototype, one whose `message` or `toString` is a throwing getter,
 * or a revoked proxy.
 */
export const describeThrown = (value: unknown): string => {
  let text: string;
  try {
    const message = value instanceof Error ? value.message : undefined;
    text = typeof message === 'string' && message !== '' ? message : String(value);
  } catch {
    try {
      text = Object.prototype.toString.call(value);
    } catch {
      text = `(unprintable ${typeof value})`;
    }
  }
  const line = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return line === '' ? `(empty ${typeof value})` : line;
};

/** The stack of `value` if it is an `Error` that has one (for `SIGNFOLD_DEBUG=1`); never throws. */
export const stackOf = (value: unknown): string | undefined => {
  try {
    return value instanceof Error && typeof value.stack === 'string' ? value.stack : undefined;
  } catch {
    return undefined;
  }
};

/** Keeps a message to one line: the CLI prints one line per error and per record. */
export const oneLine = (text: string): string => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
