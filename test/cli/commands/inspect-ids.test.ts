import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelope,
  participantEvent,
  removeTempDirs,
  requestEvent,
  runCli,
  writeFixture,
} from '../cli-helpers.js';

afterAll(removeTempDirs);

let log: string;
beforeAll(async () => {
  // Events accept any safe integer as an id, 0 and negatives included.
  log = await writeFixture('events.ndjson', [
    envelope(1, requestEvent('sign-request-sent', 0, true)),
    envelope(2, requestEvent('sign-request-sent', -5, true)),
    envelope(3, participantEvent('participant-viewed', -5, 6, false)),
    envelope(4, requestEvent('sign-request-sent', -9007199254740991, true)),
  ]);
});

describe('signfold inspect --sign-request', () => {
  it.each([
    ['0', ['--sign-request', '0'], 0],
    ['-0', ['--sign-request', '-0'], 0],
    ['-5 as the next word', ['--sign-request', '-5'], -5],
    ['-5 after =', ['--sign-request=-5'], -5],
    ['the lowest safe integer', ['--sign-request', '-9007199254740991'], -9007199254740991],
  ])('accepts %s', async (_name, flag, id) => {
    const run = await runCli(['inspect', log, ...flag]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith(`Sign request ${id}: Request ${id}\n`)).toBe(true);
  });

  it('shows the participants of a negative id', async () => {
    const run = await runCli(['inspect', log, '--sign-request', '-5']);
    expect(run.stdout).toContain('Participants (1)');
  });

  it.each([
    ['not a number', '12a'],
    ['a fraction', '1.5'],
    ['beyond the safe integers', '-9007199254740992'],
    ['a sign alone', '-'],
    ['a plus sign', '+5'],
  ])('refuses %s (exit 2)', async (_name, value) => {
    const run = await runCli(['inspect', log, `--sign-request=${value}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `signfold: --sign-request must be an integer (got '${value}') (see 'signfold inspect --help')\n`,
    );
  });

  it('an unknown id is still exit 1', async () => {
    const run = await runCli(['inspect', log, '--sign-request', '-6']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`signfold: sign request -6 does not appear in ${log}\n`);
  });
});
