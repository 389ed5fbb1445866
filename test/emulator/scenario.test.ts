/**
 * Scripted stories: the service's commands played in order, decided by its rules; the read API
 * shows what they did; a refused command stops the scenario, naming its line and the rule.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { parseScenario } from '../../src/emulator/scenario.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';

afterAll(removeTempDirs);
const SCENARIO = join(ROOT, 'test/fixtures/emulator/scenario.ndjson');

describe('scenarios', () => {
  it('play the commands in order, and the read API shows the outcome', async () => {
    const scenario = parseScenario(await readFile(SCENARIO, 'utf8'));
    const emulator = await startEmulator({ scenario, apiPort: 0 });
    try {
      expect(emulator.events.map((e) => e.event.type)).toEqual([
        'template-activated',
        'sign-request-sent',
        'participant-sent',
        'participant-viewed',
        'participant-signed',
        'sign-request-completed',
      ]);
      const answer = (await (await fetch(`${emulator.apiUrl}/sign-requests/42`)).json()) as {
        status: string;
        participants: { id: number; status: string; fieldData: unknown[] }[];
      };
      expect(answer.status).toBe('completed');
      expect(answer.participants).toMatchObject([{ id: 5, status: 'signed' }]);
      expect(answer.participants[0]?.fieldData).toHaveLength(1);
    } finally {
      await emulator.stop();
    }
  });

  it('stop at a command the service refuses, naming it and the rule', async () => {
    const text = `${await readFile(SCENARIO, 'utf8')}{"type":"decline","signRequestId":42,"participantId":5}\n`;
    const file = join(await tempDir(), 'refused.ndjson');
    await writeFile(file, text);
    const run = await runCli([
      'emulate',
      '--scenario',
      file,
      '--record',
      join(await tempDir(), 'r'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/command 5: decline refused: .*\(invalid-transition\)/);
    expect(() => parseScenario('{"type":"nope"}')).toThrow(/line 1: not a command/);
    expect(() => parseScenario('[1]')).toThrow(/item 1: not a command/);
    const mixed = await runCli(['emulate', '--scenario', file, '--requests', '3', '--record', 'x']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/--scenario plays its own story: drop --requests/);
  });

  it('write the same record every time', async () => {
    const dir = await tempDir();
    const write = async (name: string) => {
      const run = await runCli(['emulate', '--scenario', SCENARIO, '--record', join(dir, name)]);
      expect(run.code).toBe(0);
      return readFile(join(dir, name), 'utf8');
    };
    const first = await write('a');
    expect(first.trimEnd().split('\n')).toHaveLength(6);
    expect(await write('b')).toBe(first);
  });
});
