import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runCli, summaryValue, tempDir } from '../cli-helpers.js';

afterAll(removeTempDirs);

/** The lines of the bundled example log, each with its newline. */
let example: string[];
beforeAll(async () => {
  const text = await readFile(join(ROOT, 'examples/events.ndjson'), 'utf8');
  example = text.split('\n').map((line) => `${line}\n`);
});

/** Lines `from`..`to` (1-based, inclusive) of the example log. */
const lines = (from: number, to: number): string => example.slice(from - 1, to).join('');

/** A log a writer is in the middle of: 20 complete lines and the first 60 bytes of line 21. */
const liveLog = async (): Promise<{ dir: string; path: string }> => {
  const dir = await tempDir();
  const path = join(dir, 'events.ndjson');
  await writeFile(path, lines(1, 20) + (example[20] ?? '').slice(0, 60));
  return { dir, path };
};

interface JsonReport {
  checkpoint: number;
  processed: number;
  stats: { applied: number; noOps: number; conflicts: number; invalid: number };
  counts: unknown;
  templates: unknown[];
  signRequests: unknown[];
  participants: unknown[];
  quarantine: unknown[];
  incompleteTail: { position: number; line: number } | null;
}

const replayJson = async (...args: string[]): Promise<JsonReport> => {
  const run = await runCli(['replay', '--json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as JsonReport;
};

/** What must not depend on how the state was reached. */
const result = (report: JsonReport) => ({
  checkpoint: report.checkpoint,
  counts: report.counts,
  templates: report.templates,
  signRequests: report.signRequests,
  participants: report.participants,
  quarantine: report.quarantine,
  incompleteTail: report.incompleteTail,
});

describe('a log whose last line is still being written', () => {
  it('replay reports the incomplete last line, neither applied nor quarantined', async () => {
    const { path } = await liveLog();
    const run = await runCli(['replay', path]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(summaryValue(run.stdout, 'Incomplete last line')).toBe(
      'line 21 (not applied; a writer may still be appending, or a write was cut short)',
    );
    expect(summaryValue(run.stdout, 'Quarantined')).toMatch(/^0 /);
    expect(summaryValue(run.stdout, 'Checkpoint')).toBe('20');

    const report = await replayJson(path);
    expect(report.incompleteTail).toEqual({ position: 21, line: 21 });
    expect(report.quarantine).toEqual([]);
    expect(report.checkpoint).toBe(20);
    expect(report.processed).toBe(20);
  });

  it('replay of a complete log has no incomplete line', async () => {
    const { path } = await liveLog();
    await writeFile(path, lines(1, 20));
    const run = await runCli(['replay', path]);
    expect(run.stdout).not.toContain('Incomplete last line');
    expect((await replayJson(path)).incompleteTail).toBeNull();
  });

  it('a snapshot taken then, resumed once the line is complete, equals a full replay', async () => {
    const { dir, path } = await liveLog();
    const snapshot = join(dir, 'snap.json');
    const taken = await runCli(['replay', path, '--snapshot', snapshot]);
    expect(taken.code).toBe(0);
    expect(summaryValue(taken.stdout, 'Checkpoint')).toBe('20');

    // The writer finishes line 21 and appends up to line 40.
    await appendFile(path, (example[20] ?? '').slice(60) + lines(22, 40));
    const resumed = await replayJson(path, '--from-snapshot', snapshot);
    const full = await replayJson(path);
    expect(full.checkpoint).toBe(40);
    expect(full.incompleteTail).toBeNull();
    expect(result(resumed)).toEqual(result(full));
    expect(resumed.processed).toBe(full.processed);
  });

  it('check reports a torn last line as a problem (exit 1)', async () => {
    const { path } = await liveLog();
    const run = await runCli(['check', path]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')).toEqual([
      `${path}:21: position 21: bad line: torn tail (incomplete last line)`,
      `${path}: 1 problem in 21 records (1 bad line or invalid event, 0 conflicts)`,
      '',
    ]);
  });
});
