/**
 * How one attempt of an effect ended, as the executors of both engines
 * report it to an observer (the metrics of `react` and `pg work`).
 * `interrupted` is an attempt cut short by a shutdown: it counts against no
 * retry budget, but it did call the outside world, so it is reported.
 */
export type AttemptResult = 'succeeded' | 'failed' | 'interrupted';

/** Receives each attempt's end, by reactor name; it must not throw. */
export type AttemptObserver = (reactor: string, result: AttemptResult) => void;
