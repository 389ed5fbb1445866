import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIXED_LOG, removeTempDirs, runCli, writeFixture } from '../cli-helpers.js';

afterAll(removeTempDirs);

let log: string;
beforeAll(async () => {
  log = await writeFixture('events.ndjson', MIXED_LOG);
});

/** The rows of the section titled `title` (header row excluded). */
const section = (stdout: string, title: string): string[] => {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  expect(start).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start + 2, end === -1 ? undefined : end);
};

describe('signfold inspect', () => {
  it('shows the sign request, its participants and its timeline in log order', async () => {
    const run = await runCli(['inspect', log, '--sign-request', '1000']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const out = run.stdout;
    expect(out).toMatch(/^Sign request 1000: Request 1000\n/);
    expect(out).toMatch(/\n {2}status +completed\n/);
    expect(out).toMatch(/\n {2}deleted +no\n/);
    expect(out).toMatch(/\n {2}template +100 NDA\n/);
    expect(out).toMatch(/\n {2}sender +20 Sam Sender\n/);
    expect(out).toContain('Participants (2)');
    const participants = section(out, 'Participants').map((l) => l.trim().split(/\s{2,}/));
    expect(participants).toEqual([
      ['5', 'Ada Lovelace', 'signed', '7 Signer', '1', '0'],
      ['6', 'Alan Turing', 'signed', '7 Signer', '0', '0'],
    ]);
    const timeline = section(out, 'Timeline').map((l) => l.trim().split(/\s{2,}/));
    expect(timeline.map((cells) => cells[0])).toEqual(['2', '3', '5', '6', '7', '8', '10', '11']);
    expect(timeline[0]).toEqual([
      '2',
      '2025-01-01T00:00:02.000Z',
      'sign-request-sent',
      '-',
      'applied',
    ]);
    // Bare lines carry no receive time.
    expect(timeline[1]).toEqual(['3', '-', 'participant-sent', '5 Ada Lovelace', 'applied']);
    expect(timeline[4]).toEqual([
      '7',
      '-',
      'sign-request-sent',
      '-',
      'conflict: reference-mismatch',
    ]);
    expect(timeline[7]?.[2]).toBe('sign-request-completed');
  });

  it('shows the state as of --until', async () => {
    const run = await runCli(['inspect', log, '--sign-request', '1000', '--until', '5']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\n {2}status +sent\n/);
    expect(section(run.stdout, 'Timeline')).toHaveLength(3);
  });

  it('shows a deleted request as deleted', async () => {
    const run = await runCli(['inspect', log, '--sign-request', '1001']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\n {2}deleted +yes\n/);
    expect(run.stdout).toContain('Participants (0)\n  none\n');
  });

  it('exits 1 with one line on stderr for an id the log never mentions', async () => {
    const run = await runCli(['inspect', log, '--sign-request', '4242']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `signfold: sign request 4242 does not appear in ${log}\n`,
    });
  });
});
