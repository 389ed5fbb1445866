/**
 * The README's Development section says what `npm test` needs on the machine,
 * as the scripts that find it do: the error each throws when its program is
 * missing (quoted word for word), where the PostgreSQL binaries are looked up
 * and the Debian package that provides them, and where the browser comes from
 * (a devDependency; no package to install).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_VARIABLE, NO_CHROMIUM } from '../../scripts/chromium.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const readme = read('README.md');
const development = readme.slice(readme.indexOf('## Development'), readme.indexOf('## Layout'));
const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Install'));
const postgresScript = read('scripts/throwaway-postgres.js');
const chromiumScript = read('scripts/chromium.js');
const { devDependencies } = JSON.parse(read('package.json')) as {
  devDependencies: Record<string, string>;
};

/** The message of the one `throw new Error(…)` of `source`, a '…' or `…` literal. */
const thrown = (source: string): string =>
  /throw new Error\((['`])(.*?)\1\)/.exec(source)?.[2] ?? 'no throw found';

describe("the README's test prerequisites", () => {
  it('quotes the error of a missing PostgreSQL and a missing chromium word for word', () => {
    expect(development).toContain(thrown(postgresScript));
    expect(chromiumScript).toContain('throw new Error(NO_CHROMIUM)');
    expect(development).toContain(NO_CHROMIUM);
  });

  it('names the directories the PostgreSQL binaries are looked up in, and the override', () => {
    const versions = /\[((?:'\d+', )*'\d+')\]\.map/.exec(postgresScript)?.[1]?.replaceAll(/'/g, '');
    expect(versions).toBeDefined();
    expect(development).toContain(`/usr/lib/postgresql/${versions?.split(', ').join('|')}/bin`);
    expect(postgresScript).toContain("'/usr/local/bin'");
    expect(development).toContain('/usr/local/bin');
    expect(postgresScript).toContain('SIGNFOLD_PG_BIN');
    expect(development).toContain('SIGNFOLD_PG_BIN');
  });

  it('names the Debian package of PostgreSQL, in Development and next to npm test', () => {
    for (const section of [development, quickStart].map((text) => text.replaceAll(/\s+/g, ' '))) {
      expect(section).toContain('apt-get install postgresql');
      expect(section).toMatch(/about \d+ minutes on a 2-core machine/);
    }
  });

  it('says the browser comes from the devDependency, or the one SIGNFOLD_CHROMIUM names', () => {
    expect(devDependencies['@sparticuz/chromium']).toBeDefined();
    expect(chromiumScript).toContain("require.resolve('@sparticuz/chromium')");
    expect(development).toContain('`@sparticuz/chromium`');
    expect(development).toContain('[scripts/chromium.js](scripts/chromium.js)');
    expect(development).toContain(CHROMIUM_VARIABLE);
    // Nothing to install for it: neither section names a Debian chromium.
    for (const section of [development, quickStart].map((text) => text.replaceAll(/\s+/g, ' '))) {
      expect(section).not.toMatch(/apt-get install [^`]*chromium|\/usr\/bin\/chromium/);
    }
  });
});
