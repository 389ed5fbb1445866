/**
 * The documents speak of the product, not of the work that made it: no
 * "the issue", "issue N", "work item" or "this session" (a heading once read
 * "Decisions where the issue was silent"; another table compared "the issue's
 * anchors"). Links to the repository's issue tracker are fine, and so are
 * PostgreSQL's sessions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const WORK_WORDS = /\b(the issue|issue's|issue \d+|work items?|this session)\b/i;

describe('the documents', () => {
  it('finds the README and the docs', () => {
    expect(DOCS.length).toBeGreaterThan(10);
  });

  it('say nothing of the issue, work item or session that produced them', () => {
    const found: string[] = [];
    for (const doc of DOCS) {
      for (const [i, line] of readFileSync(join(ROOT, doc), 'utf8').split('\n').entries()) {
        if (WORK_WORDS.test(line.replaceAll(/https?:\/\/\S+/g, ''))) {
          found.push(`${doc}:${i + 1}: ${line}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
