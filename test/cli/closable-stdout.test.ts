/** closableStdout: which stdout errors end the process, and what is written after the reader left. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { closableStdout } from '../../src/cli/closable-stdout.js';

/** A stdout that records writes and lets the test raise its errors. */
const fakeStdout = (isTTY?: boolean) => {
  const events = new EventEmitter();
  const written: string[] = [];
  const stream = {
    write: (text: string) => written.push(text) > 0,
    on: (event: 'error', listener: (error: NodeJS.ErrnoException) => void) =>
      events.on(event, listener),
    ...(isTTY === undefined ? {} : { isTTY }),
  };
  const fail = (code: string) =>
    events.emit('error', Object.assign(new Error(code), { code }) as NodeJS.ErrnoException);
  return { stream, written, fail };
};

describe('closableStdout', () => {
  it('drops every write after an EPIPE, and exits for none of the errors that follow', () => {
    const { stream, written, fail } = fakeStdout();
    const exits: number[] = [];
    const out = closableStdout(stream, (code) => exits.push(code));
    out.write('first\n');
    fail('EPIPE');
    out.write('second\n');
    fail('ERR_STREAM_DESTROYED');
    expect({ written, exits }).toEqual({ written: ['first\n'], exits: [] });
  });

  it('exits 2 on any other write error: the output is lost', () => {
    const { stream, fail } = fakeStdout();
    const exits: number[] = [];
    closableStdout(stream, (code) => exits.push(code));
    fail('ENOSPC');
    expect(exits).toEqual([2]);
  });

  it('tells a terminal from a pipe, as progress needs', () => {
    expect(closableStdout(fakeStdout(true).stream, () => undefined).isTTY).toBe(true);
    expect(closableStdout(fakeStdout().stream, () => undefined).isTTY).toBe(false);
  });
});
