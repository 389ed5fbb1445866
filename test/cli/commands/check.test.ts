import { afterAll, describe, expect, it } from 'vitest';
import {
  CLEAN_LOG,
  envelope,
  MIXED_LOG,
  participantEvent,
  removeTempDirs,
  requestEvent,
  runCli,
  writeFixture,
} from '../cli-helpers.js';

afterAll(removeTempDirs);

describe('signfold check', () => {
  it('prints LOG:LINE: position P: reason for each problem, then a count, and exits 1', async () => {
    const log = await writeFixture('events.ndjson', MIXED_LOG);
    const run = await runCli(['check', log]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^${log}:4: position 4: bad line: invalid JSON`));
    expect(lines[1]).toMatch(new RegExp(`^${log}:7: position 7: conflict: reference-mismatch: `));
    expect(lines[2]).toBe(
      `${log}: 2 problems in 12 records (1 bad line or invalid event, 1 conflict)`,
    );
  });

  it('reports the line number and the position apart when envelopes number them differently', async () => {
    const log = await writeFixture('envelopes.ndjson', [
      envelope(10, requestEvent('sign-request-sent', 1000, true), 'a'),
      envelope(20, requestEvent('sign-request-completed', 1000, true), 'b'),
      // A participant sent on a completed request: an invalid transition.
      envelope(30, participantEvent('participant-sent', 1000, 5, true), 'c'),
      envelope(40, { type: 'participant-viewed' }, 'd'),
    ]);
    const run = await runCli(['check', log]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${log}:3: position 30: conflict: invalid-transition: `));
    expect(lines[1]).toMatch(new RegExp(`^${log}:4: position 40: invalid event: `));
    expect(lines[2]).toMatch(/: 2 problems in 4 records/);
  });

  it('lists lines of whitespace JSON does not allow, and no CR of a CRLF file', async () => {
    const lines = [
      JSON.stringify(requestEvent('sign-request-sent', 1000, true)),
      '\u00a0',
      '\u2028',
      '\u3000',
      '\ufeff{}',
      ' \t',
      'garbage',
    ];
    const log = await writeFixture(
      'spaces.ndjson',
      lines.map((line) => `${line}\r`),
    );
    const run = await runCli(['check', log]);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('\r');
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      `${log}:2: position 2: bad line: invalid JSON: whitespace JSON does not allow (U+00A0)`,
      `${log}:3: position 2: bad line: invalid JSON: whitespace JSON does not allow (U+2028)`,
      `${log}:4: position 2: bad line: invalid JSON: whitespace JSON does not allow (U+3000)`,
      `${log}:5: position 2: bad line: invalid JSON: a byte order mark (U+FEFF) is allowed only at the start of the file`,
      `${log}:7: position 2: bad line: invalid JSON: Unexpected token 'g', "garbage" is not valid JSON`,
      `${log}: 5 problems in 6 records (5 bad lines or invalid events, 0 conflicts)`,
    ]);
  });

  it('exits 0 on a clean log', async () => {
    const log = await writeFixture('clean.ndjson', CLEAN_LOG);
    const run = await runCli(['check', log]);
    expect(run).toEqual({ code: 0, stdout: `${log}: ok, 10 records, no problems\n`, stderr: '' });
  });

  it('with --strict also rejects members the spec does not list', async () => {
    const log = await writeFixture('extra.ndjson', [
      JSON.stringify({ ...requestEvent('sign-request-sent', 1000, true), color: 'red' }),
    ]);
    expect((await runCli(['check', log])).code).toBe(0);
    const strict = await runCli(['check', '--strict', log]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(new RegExp(`^${log}:1: position 1: invalid event: color`));
  });

  it('reports a torn last line', async () => {
    const log = await writeFixture('torn.ndjson', CLEAN_LOG);
    const { appendFile } = await import('node:fs/promises');
    await appendFile(log, '{"type":"partic');
    const run = await runCli(['check', log]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${log}:11: position 13: bad line: torn tail`);
  });
});
