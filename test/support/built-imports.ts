/**
 * Documentation examples import `signfold` and its subpaths as a reader
 * would; the tests run them against the built package. This rewrites each
 * `from 'signfold…'` to the file package.json's `exports` maps it to, so a
 * new entry point needs no edit here.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');

interface Target {
  readonly import: string;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, Target | string>;
};

/** The built file of `specifier` (`signfold`, `signfold/testing`…), as a path. */
export const builtPath = (specifier: string): string => {
  const subpath = specifier === 'signfold' ? '.' : `./${specifier.slice('signfold/'.length)}`;
  const target = manifest.exports[subpath];
  if (target === undefined || typeof target === 'string') {
    throw new Error(`package.json exports no ${subpath}`);
  }
  return join(ROOT, target.import);
};

/** `code` with every `from 'signfold…'` pointing at the built file (as a file URL, or a path). */
export const withBuiltImports = (code: string, as: 'url' | 'path' = 'url'): string =>
  code.replace(/from (['"])(signfold(?:\/[a-z]+)?)\1/g, (_, quote: string, specifier: string) => {
    const path = builtPath(specifier);
    return `from ${quote}${as === 'url' ? pathToFileURL(path).href : path}${quote}`;
  });
