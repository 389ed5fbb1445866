/**
 * Progress of a long replay on stderr: position and rate, redrawn in place at
 * most every {@link PROGRESS_INTERVAL_MS}, and erased at the end so the
 * terminal is left clean. Nothing is drawn when stderr is not a terminal (a
 * file, a pipe, CI logs), nor for replays shorter than one interval.
 */

import { visibleText } from '../core/visible-text.js';
import type { TextOutput } from './cli-io.js';

/** Minimum time between two redraws. */
export const PROGRESS_INTERVAL_MS = 250;

/** Carriage return + erase line: rewrites the current terminal line. */
const REWRITE = '\r\x1b[2K';

/** Reports replay progress; call {@link tick} often, {@link finish} once. */
export class ReplayProgress {
  readonly #out: TextOutput;
  readonly #now: () => number;
  readonly #label: string;
  readonly #verb: string;
  readonly #enabled: boolean;
  readonly #start: number;
  #lastDraw: number;
  #drawn = false;

  /** `label` names the work, e.g. the log path; `verb` what is done to it. */
  constructor(out: TextOutput, now: () => number, label: string, verb = 'replaying') {
    this.#out = out;
    this.#now = now;
    // A log path or schema name: data, like everything else printed from it.
    this.#label = visibleText(label);
    this.#verb = verb;
    this.#enabled = out.isTTY === true;
    this.#start = now();
    // The first draw waits one interval too: short replays print nothing at all.
    this.#lastDraw = this.#start;
  }

  /** Records that `processed` records were replayed, up to `position`. */
  tick(position: number, processed: number): void {
    if (!this.#enabled) return;
    const now = this.#now();
    if (now - this.#lastDraw < PROGRESS_INTERVAL_MS) return;
    this.#lastDraw = now;
    const rate = Math.round((processed * 1000) / Math.max(1, now - this.#start));
    this.#out.write(
      `${REWRITE}${this.#verb} ${this.#label}: position ${position}, ${processed} events, ${rate} events/s`,
    );
    this.#drawn = true;
  }

  /** Erases the progress line, if one was drawn. */
  finish(): void {
    if (this.#drawn) this.#out.write(REWRITE);
    this.#drawn = false;
  }
}
