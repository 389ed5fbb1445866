/**
 * docs/testing.md's examples are real files that run: the vitest one in this
 * suite (vitest.config.ts includes it), the node:test one here with `node --test`
 * on the built package. The page must show both files exactly.
 */
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../store/fixtures/log-helpers.js';
import { withBuiltImports } from '../support/built-imports.js';

afterAll(removeTempDirs);

const ROOT = join(import.meta.dirname, '../..');
const NODE_EXAMPLE = join(ROOT, 'examples/testing/decline-alert.node-test.mjs');
const VITEST_EXAMPLE = join(ROOT, 'examples/testing/decline-alert.vitest.test.ts');

const nodeTest = (file: string) =>
  spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000, // a hang guard: a busy machine may take long to start it
  });

describe('docs/testing.md examples', () => {
  it('runs the node:test example green', () => {
    const run = nodeTest(NODE_EXAMPLE);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('# pass 3');
    expect(run.stdout).toContain('# fail 0');
  });

  it('reports a failing specification under node:test with the kit’s message', async () => {
    const file = join(await tempDir(), 'failing.test.mjs');
    await writeFile(
      file,
      withBuiltImports(
        `import { test } from 'node:test';\nimport { events, given } from 'signfold/testing';\n`,
      ) +
        `test('wrong', () => { given(events.signRequestSent()).when(events.participantSent())` +
        `.thenParticipant(1000, 5, { status: 'signed' }); });\n`,
    );
    const run = nodeTest(file);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('# fail 1');
    expect(run.stdout).toContain(
      'participant 5 of sign request 1000 does not match: status differs',
    );
    expect(run.stdout).toContain('ERR_ASSERTION');
  });

  it('runs the short snippet of docs/testing.md', async () => {
    const readme = await readFile(join(ROOT, 'docs/testing.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## In short'));
    const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(snippet).toContain('given(');
    const file = join(await tempDir(), 'readme-snippet.mjs');
    await writeFile(file, withBuiltImports(snippet));
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('shows both example files verbatim', async () => {
    const doc = await readFile(join(ROOT, 'docs/testing.md'), 'utf8');
    expect(doc).toContain(`\n\`\`\`ts\n${await readFile(VITEST_EXAMPLE, 'utf8')}\`\`\`\n`);
    expect(doc).toContain(`\n\`\`\`js\n${await readFile(NODE_EXAMPLE, 'utf8')}\`\`\`\n`);
  });
});
