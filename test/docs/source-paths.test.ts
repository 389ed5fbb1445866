/**
 * Every path into the repository that README.md and docs/*.md name (`src/…`,
 * `test/…`, `scripts/…`, `bench/…`, `examples/…`, in code spans or links)
 * exists; a `*` matches within one path segment. After the source tree was
 * reorganised, docs still pointed at `src/projections/*-handler.ts`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const TOPS = ['src', 'test', 'scripts', 'bench', 'examples'];
const FILES = TOPS.flatMap((top) =>
  readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' }).map((path) =>
    join(top, path),
  ),
);

/** The repository paths `doc` names: in a code span, or as a relative link target. */
const pathsIn = (doc: string): string[] => {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const found: string[] = [];
  const candidates = [
    ...[...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1] ?? ''),
    ...[...text.matchAll(/\]\(([^)\s#]+)/g)].map((m) => normalize(join(dirname(doc), m[1] ?? ''))),
  ];
  for (const candidate of candidates) {
    const path = candidate.replace(/[:,.)]+$/, '');
    if (TOPS.some((top) => path.startsWith(`${top}/`))) found.push(path);
  }
  return found;
};

const exists = (path: string): boolean => {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const pattern = new RegExp(
    `^${path
      .replace(/\/$/, '')
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
  return FILES.some((file) => pattern.test(file));
};

describe('paths named in the docs', () => {
  it('finds paths in the README and the docs', () => {
    expect(DOCS.flatMap(pathsIn).length).toBeGreaterThan(20);
  });

  it('every one exists', () => {
    const missing = DOCS.flatMap((doc) =>
      pathsIn(doc)
        .filter((path) => !exists(path))
        .map((path) => `${doc}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
