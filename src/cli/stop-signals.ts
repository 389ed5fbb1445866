/**
 * The signals that stop `signfold serve`. They are taken over as soon as the
 * command starts, so one that arrives while the log is being opened still
 * leads to a clean stop (the lock released) rather than a kill.
 */

/** The signals that ask the server to stop. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** A stop request, once one of {@link STOP_SIGNALS} arrived. */
export interface StopRequest {
  /** Resolves with the first signal's name. */
  readonly requested: Promise<string>;
  /** The first signal's name, if one arrived. */
  readonly signal: () => string | undefined;
  /** Gives the signals back to their default action. */
  release(): void;
}

/** Listens for the stop signals; later ones, while stopping, are ignored (the bound still holds). */
export const awaitStopSignal = (): StopRequest => {
  let received: string | undefined;
  let wake: (signal: string) => void = () => undefined;
  const requested = new Promise<string>((resolve) => {
    wake = resolve;
  });
  const onSignal = (signal: string): void => {
    if (received !== undefined) return;
    received = signal;
    wake(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    requested,
    signal: () => received,
    release: () => {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    },
  };
};
