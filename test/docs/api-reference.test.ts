/**
 * The API reference (`npm run docs:api`, typedoc) opens on the README, and the
 * main entry point describes itself with `@packageDocumentation`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const config = JSON.parse(readFileSync(join(ROOT, 'typedoc.json'), 'utf8')) as {
  readonly readme?: string;
  readonly entryPoints: readonly string[];
  readonly treatWarningsAsErrors?: boolean;
};

describe('the API reference', () => {
  it('has the README as its landing page, and fails on any warning', () => {
    expect(config.readme).toBe('README.md');
    expect(config.treatWarningsAsErrors).toBe(true);
  });

  it('documents the main entry point as a whole, first thing in the file', () => {
    const [main = ''] = config.entryPoints;
    const text = readFileSync(join(ROOT, main), 'utf8');
    const opening = /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';
    expect(opening).toContain('@packageDocumentation');
    expect(opening).toContain('README');
  });
});
