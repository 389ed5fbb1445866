import { describe, expect, it } from 'vitest';
import { PROGRESS_INTERVAL_MS, ReplayProgress } from '../../src/cli/progress.js';

/** A stream recording what is written, terminal or not, and a clock the test moves. */
const setup = (isTTY: boolean) => {
  const written: string[] = [];
  let time = 1000;
  const out = { isTTY, write: (text: string) => written.push(text) };
  const progress = new ReplayProgress(out, () => time, 'events.ndjson');
  const advance = (ms: number): void => {
    time += ms;
  };
  return { written, progress, advance };
};

describe('ReplayProgress', () => {
  it('escapes control and bidi characters of the label (a log path is data)', () => {
    const written: string[] = [];
    let time = 0;
    const out = { isTTY: true, write: (text: string) => written.push(text) };
    const progress = new ReplayProgress(out, () => time, 'x\u001b]0;pwned\u0007\u202e.ndjson');
    time += PROGRESS_INTERVAL_MS;
    progress.tick(1, 1);
    expect(written).toEqual([
      '\r\x1b[2Kreplaying x\\u001b]0;pwned\\u0007\\u202e.ndjson: position 1, 1 events, 4 events/s',
    ]);
  });

  it('draws nothing when stderr is not a terminal', () => {
    const { written, progress, advance } = setup(false);
    advance(10_000);
    progress.tick(5000, 5000);
    progress.finish();
    expect(written).toEqual([]);
  });

  it('draws nothing for a replay shorter than one interval', () => {
    const { written, progress, advance } = setup(true);
    advance(PROGRESS_INTERVAL_MS - 1);
    progress.tick(10, 10);
    progress.finish();
    expect(written).toEqual([]);
  });

  it('redraws at most once per interval, with position and rate, and erases the line at the end', () => {
    const { written, progress, advance } = setup(true);
    advance(500);
    progress.tick(1000, 1000);
    advance(100);
    progress.tick(1200, 1200);
    advance(PROGRESS_INTERVAL_MS);
    progress.tick(2100, 2100);
    progress.finish();
    expect(written).toEqual([
      '\r\x1b[2Kreplaying events.ndjson: position 1000, 1000 events, 2000 events/s',
      '\r\x1b[2Kreplaying events.ndjson: position 2100, 2100 events, 2471 events/s',
      '\r\x1b[2K',
    ]);
  });
});
