/**
 * The hostile corpus through an identity upcaster that matches every record
 * (`from` a predicate answering true, `to` returning its argument): every line
 * gets the verdict it gets without upcasters, the projections, counters and
 * checkpoint are the same, and through the CLI `replay --json` and `check`
 * agree with their runs without `--upcasters`, but for the messages, which
 * name the upcaster.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defineUpcaster } from '../../src/core/upcasters/define-upcaster.js';
import { createProjector } from '../../src/engine/projector.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import { verdictOf } from '../support/hostile-deliveries.js';

afterAll(removeTempDirs);

const identity = defineUpcaster({ name: 'identity', from: () => true, to: (wire) => wire });

const foldCorpus = async (upcasters: readonly (typeof identity)[]) => {
  const projector = createProjector({ upcasters });
  const verdicts: [number, string][] = [];
  for await (const batch of readFileEventLog(HOSTILE_CORPUS)) {
    for (const record of batch) verdicts.push([record.line, verdictOf(projector, record)]);
  }
  return { projector, verdicts };
};

describe('the hostile corpus through an identity upcaster', () => {
  it('gives every line the verdict it gets without upcasters', async () => {
    const plain = await foldCorpus([]);
    const upcast = await foldCorpus([identity]);
    expect(upcast.verdicts).toEqual(plain.verdicts);
    // The corpus has every verdict, so this compares something.
    expect(new Set(plain.verdicts.map(([, v]) => v)).size).toBeGreaterThanOrEqual(4);
    expect(upcast.projector.state()).toEqual(plain.projector.state());
    expect(upcast.projector.stats()).toEqual(plain.projector.stats());
    expect(upcast.projector.checkpoint).toBe(plain.projector.checkpoint);
    const kinds = (p: typeof plain.projector) =>
      p.quarantine().map((q) => [q.position, q.line, q.reason.kind, q.raw]);
    expect(kinds(upcast.projector)).toEqual(kinds(plain.projector));
  });

  it('replay --json and check agree with their runs without --upcasters', async () => {
    const module = join(await tempDir(), 'identity.mjs');
    await writeFile(
      module,
      "export default [{ name: 'identity', from: () => true, to: (w) => w }];\n",
    );
    const strip = (text: string) => {
      const json = JSON.parse(text);
      return {
        ...json,
        elapsedMs: undefined,
        quarantine: json.quarantine.map((q: { reason: { kind: string } }) => ({
          ...q,
          reason: q.reason.kind,
        })),
      };
    };
    const plain = await runCli(['replay', HOSTILE_CORPUS, '--json']);
    const upcast = await runCli(['replay', HOSTILE_CORPUS, '--json', '--upcasters', module]);
    expect(upcast.code).toBe(plain.code);
    expect(strip(upcast.stdout)).toEqual(strip(plain.stdout));
    const checked = await runCli(['check', HOSTILE_CORPUS]);
    const checkedUpcast = await runCli(['check', HOSTILE_CORPUS, '--upcasters', module]);
    expect(checkedUpcast.code).toBe(checked.code);
    // One line per problem either way: the same lines, in the same places.
    const places = (out: string) => out.split('\n').map((line) => line.split(': ')[0]);
    expect(places(checkedUpcast.stdout)).toEqual(places(checked.stdout));
  });
});
