/**
 * The README's Install section names every runtime dependency of package.json,
 * with the count in words, and each pinned one with its exact version (it once
 * said three, immer, ts-pattern and neverthrow, when there were seven).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Usage'));
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

describe("the README's runtime dependencies", () => {
  it('says how many there are', () => {
    const count = Object.keys(dependencies).length;
    expect(install).toMatch(new RegExp(`\\b${WORDS[count]} runtime dependencies`, 'i'));
  });

  it('names each, and each pinned one with its version', () => {
    for (const [name, range] of Object.entries(dependencies)) {
      expect(install, name).toMatch(new RegExp(`\\b${name}\\b`));
      if (/^\d/.test(range)) expect(install, name).toContain(range);
    }
  });
});
