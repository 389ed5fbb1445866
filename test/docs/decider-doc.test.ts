/**
 * docs/decider.md shows its example file verbatim; the file itself runs in this suite
 * (vitest.config.ts includes examples/testing), against the built package.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

describe('docs/decider.md', () => {
  it('shows the example file verbatim', async () => {
    const doc = await readFile(join(ROOT, 'docs/decider.md'), 'utf8');
    const example = await readFile(join(ROOT, 'examples/testing/decider.vitest.test.ts'), 'utf8');
    expect(doc).toContain(`\n\`\`\`ts\n${example}\`\`\`\n`);
  });
});
