import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelope,
  MIXED_LOG,
  removeTempDirs,
  runCli,
  summaryValue,
  tempDir,
  templateEvent,
  writeFixture,
} from '../cli-helpers.js';

afterAll(removeTempDirs);

let log: string;
beforeAll(async () => {
  log = await writeFixture('events.ndjson', MIXED_LOG);
});

/** The `--json` document, parsed (only the members the tests look at are typed). */
interface JsonReport {
  checkpoint: number;
  processed: number;
  until: number | null;
  stats: { applied: number; noOps: number; conflicts: number; invalid: number };
  counts: {
    templates: Record<string, number>;
    signRequests: Record<string, number>;
    participants: Record<string, number>;
  };
  halted: { position: number; line: number } | null;
  templates: { id: number; status: string }[];
  signRequests: { id: number; status: string; deleted: boolean }[];
  participants: { id: number; signRequestId: number; status: string; viewCount: number }[];
  quarantine: { position: number; line: number; reason: { kind: string } }[];
}

const replayJson = async (...args: string[]): Promise<JsonReport> => {
  const run = await runCli(['replay', '--json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as JsonReport;
};

describe('signfold replay', () => {
  it('prints counts by status, quarantined records with positions, checkpoint and timing', async () => {
    const run = await runCli(['replay', log]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const out = run.stdout;
    expect(summaryValue(out, 'Events')).toBe(
      '12 processed (10 applied, 0 no-ops, 1 conflict, 1 invalid)',
    );
    expect(summaryValue(out, 'Templates')).toBe('1 (active 1, inactive 0, deleted 0)');
    expect(summaryValue(out, 'Sign requests')).toBe(
      '2 (draft 0, sent 0, completed 1, declined 0, deleted 1)',
    );
    expect(summaryValue(out, 'Participants')).toBe('2 (sent 0, viewed 0, signed 2, declined 0)');
    expect(summaryValue(out, 'Quarantined')).toBe('2 (1 bad line or invalid event, 1 conflict)');
    expect(out).toContain('  position 4 (line 4): bad line: invalid JSON');
    expect(out).toContain('  position 7 (line 7): conflict: reference-mismatch');
    expect(summaryValue(out, 'Checkpoint')).toBe('12');
    expect(summaryValue(out, 'Elapsed')).toMatch(/^\d+\.\d{3} s \(\d+ events\/s\)$/);
  });

  it('never modifies the log', async () => {
    const before = await readFile(log);
    const { mtimeMs } = await stat(log);
    await runCli(['replay', log]);
    expect(await readFile(log)).toEqual(before);
    expect((await stat(log)).mtimeMs).toBe(mtimeMs);
  });

  it('prints JSON whose arrays agree with its counts and stats', async () => {
    const report = await replayJson(log);
    expect(report.checkpoint).toBe(12);
    expect(report.processed).toBe(12);
    expect(report.stats).toMatchObject({ applied: 10, noOps: 0, conflicts: 1, invalid: 1 });
    expect(report.halted).toBeNull();
    expect(report.templates).toEqual([expect.objectContaining({ id: 100, status: 'active' })]);
    expect(report.signRequests.map((r) => [r.id, r.status, r.deleted])).toEqual([
      [1000, 'completed', false],
      [1001, 'sent', true],
    ]);
    expect(report.participants.map((p) => [p.id, p.status, p.viewCount])).toEqual([
      [5, 'signed', 1],
      [6, 'signed', 0],
    ]);
    expect(report.counts.signRequests).toMatchObject({ total: report.signRequests.length });
    expect(report.counts.participants).toMatchObject({
      total: report.participants.length,
      signed: report.participants.filter((p) => p.status === 'signed').length,
    });
    expect(report.quarantine.map((q) => [q.position, q.line, q.reason.kind])).toEqual([
      [4, 4, 'bad-line'],
      [7, 7, 'conflict'],
    ]);
  });

  it('stops after --until N (time travel)', async () => {
    const run = await runCli(['replay', log, '--until', '6']);
    expect(run.code).toBe(0);
    expect(summaryValue(run.stdout, 'Until')).toBe('position 6');
    expect(summaryValue(run.stdout, 'Checkpoint')).toBe('6');
    expect(summaryValue(run.stdout, 'Sign requests')).toBe(
      '1 (draft 0, sent 1, completed 0, declined 0, deleted 0)',
    );
    expect(summaryValue(run.stdout, 'Participants')).toBe(
      '2 (sent 1, viewed 1, signed 0, declined 0)',
    );
    const report = await replayJson(log, '--until', '6');
    expect(report.until).toBe(6);
    expect(report.quarantine.map((q) => q.position)).toEqual([4]);
  });

  it('--snapshot at N then --from-snapshot equals a full replay', async () => {
    const dir = await tempDir();
    const snapshot = join(dir, 'snap.json');
    const first = await runCli(['replay', log, '--until', '5', '--snapshot', snapshot]);
    expect(first.code).toBe(0);
    expect(summaryValue(first.stdout, 'Snapshot')).toBe(`written to ${snapshot}`);
    expect(JSON.parse(await readFile(snapshot, 'utf8'))).toMatchObject({ checkpoint: 5 });

    const resumed = await replayJson(log, '--from-snapshot', snapshot);
    const full = await replayJson(log);
    for (const key of [
      'processed',
      'stats',
      'checkpoint',
      'templates',
      'signRequests',
      'participants',
      'quarantine',
      'counts',
    ] as const) {
      expect(resumed[key]).toEqual(full[key]);
    }
    const text = await runCli(['replay', log, '--from-snapshot', snapshot]);
    expect(summaryValue(text.stdout, 'From snapshot')).toBe(`${snapshot} (checkpoint 5)`);
  });

  it('refuses --until before the snapshot checkpoint', async () => {
    const snapshot = join(await tempDir(), 'snap.json');
    await runCli(['replay', log, '--snapshot', snapshot]);
    const run = await runCli(['replay', log, '--from-snapshot', snapshot, '--until', '3']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^signfold: --until 3 is before the snapshot's checkpoint 12/);
  });

  it('--policy halt stops at the first bad record with exit 1 and writes no snapshot', async () => {
    const snapshot = join(await tempDir(), 'snap.json');
    const run = await runCli(['replay', log, '--policy', 'halt', '--snapshot', snapshot]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^signfold: halted at position 4 \(line 4\): bad line: invalid JSON/,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(summaryValue(run.stdout, 'Checkpoint')).toBe('3');
    expect(summaryValue(run.stdout, 'Halted')).toMatch(/^at position 4 \(line 4\)/);
    await expect(stat(snapshot)).rejects.toThrow();

    const json = await runCli(['replay', '--json', '--policy', 'halt', log, '--until', '3']);
    expect(json.code).toBe(0);
    const conflictOnly = await writeFixture(
      'c.ndjson',
      MIXED_LOG.filter((_, i) => i !== 3),
    );
    const halted = await runCli(['replay', '--json', '--policy', 'halt', conflictOnly]);
    expect(halted.code).toBe(1);
    const report = JSON.parse(halted.stdout) as JsonReport;
    // Line 7 of MIXED_LOG is line 6 here; as a bare line after position 6 it gets position 7.
    expect(report.halted).toMatchObject({ position: 7, line: 6 });
    expect(report.checkpoint).toBe(6);
  });

  it('one garbage line among envelopes is one bad line; --until and snapshots cut around it', async () => {
    const lines = Array.from({ length: 40 }, (_, i) =>
      envelope(i + 1, templateEvent('template-activated', { templateId: 100 + i }), `d-${i + 1}`),
    );
    lines.splice(10, 0, 'garbage');
    const log = await writeFixture('garbage-in-envelopes.ndjson', lines);
    const dir = await tempDir();
    const full = await runCli(['replay', log]);
    expect(summaryValue(full.stdout, 'Quarantined')).toBe(
      '1 (1 bad line or invalid event, 0 conflicts)',
    );
    expect(full.stdout).toContain(
      `  position 11 (line 11): bad line: invalid JSON: Unexpected token 'g', "garbage" is not valid JSON\n`,
    );
    expect(summaryValue(full.stdout, 'Checkpoint')).toBe('40');
    for (const until of ['10', '11']) {
      const snapshot = join(dir, `garbage-${until}.json`);
      const head = await runCli(['replay', log, '--until', until, '--snapshot', snapshot]);
      expect(summaryValue(head.stdout, 'Quarantined')).toMatch(until === '10' ? /^0 / : /^1 /);
      const rest = await runCli(['replay', log, '--from-snapshot', snapshot, '--json']);
      const whole = await runCli(['replay', log, '--json']);
      expect(JSON.parse(rest.stdout)).toEqual({
        ...JSON.parse(whole.stdout),
        fromSnapshot: { path: snapshot, checkpoint: Number(until) },
      });
    }
  });

  it('lists 20 quarantined records, then counts the rest', async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `not json ${i}`);
    const run = await runCli(['replay', await writeFixture('bad.ndjson', lines)]);
    expect(run.code).toBe(0);
    const listed = run.stdout.split('\n').filter((l) => l.startsWith('  position '));
    expect(listed).toHaveLength(20);
    // No entry: every bad line stands before position 1, and none holds it.
    expect(listed[19]).toMatch(/^ {2}position 1 \(line 20\)/);
    expect(run.stdout).toContain('  … and 5 more');
  });
});
