import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.js';
import {
  checkDatabaseUrl,
  maskedUrlText,
  shownUrl,
  withoutPassword,
} from '../../src/cli/database-url.js';

/** The message `checkDatabaseUrl` throws for `database`, or `undefined` when it accepts it. */
const refusal = (database: string, origin?: '--database' | 'DATABASE_URL'): string | undefined => {
  try {
    checkDatabaseUrl(database, origin);
    return undefined;
  } catch (cause) {
    expect(cause).toBeInstanceOf(CliError);
    return (cause as CliError).message;
  }
};

// A marker no other part of the URLs below contains, so finding it means the password leaked.
const password = fc
  .string({ unit: 'grapheme', minLength: 4, maxLength: 16 })
  .map((tail) => `Zq7${tail}`);

describe('database URLs never show their password', () => {
  it('a malformed URL is quoted without its user info', () => {
    const message = refusal('postgres://secure:s3cretPW@127.0.0.1:notaport/app');
    expect(message).toBe(
      "--database must be a URL such as postgres://user@host:5432/db (got 'postgres://…@127.0.0.1:notaport/app')",
    );
    expect(refusal('postgres://secure:s3cretPW@host:x/db?password=s3cretPW', 'DATABASE_URL')).toBe(
      "DATABASE_URL must be a URL such as postgres://user@host:5432/db (got 'postgres://…@host:x/db?…')",
    );
  });

  it('a URL without // (its password would be read as the database name) is refused', () => {
    const message = refusal('postgres:secure:s3cretPW@127.0.0.1/app');
    expect(message).toContain('must be a URL such as');
    expect(message).not.toContain('s3cretPW');
    expect(refusal('mysql://secure:s3cretPW@host/db')).toBe(
      "--database must be a postgres:// URL (got 'mysql:')",
    );
  });

  it('property: no malformed or refused URL built around a password quotes it', () => {
    const malformed = fc.constantFrom(
      (p: string) => `postgres://secure:${p}@127.0.0.1:notaport/app`,
      (p: string) => `postgresql://secure:${p}@[::1/app`,
      (p: string) => `postgres:secure:${p}@127.0.0.1/app`,
      (p: string) => `postgres://secure:${encodeURIComponent(p)}@h:99999/app?password=${p}`,
      (p: string) => `secure:${p}@127.0.0.1:5432/app`,
    );
    fc.assert(
      fc.property(password, malformed, (secret, build) => {
        const message = refusal(build(secret));
        if (message !== undefined) expect(message).not.toContain(secret);
        expect(maskedUrlText(build(secret))).not.toContain(secret);
      }),
    );
  });

  it('property: withoutPassword hides every spelling of the password, raw and decoded', () => {
    fc.assert(
      fc.property(password, (secret) => {
        const database = `postgres://secure:${encodeURIComponent(secret)}@127.0.0.1:5432/app`;
        const quoted = `database "${secret}" does not exist, nor "${encodeURIComponent(secret)}"`;
        const shown = withoutPassword(quoted, database);
        expect(shown).not.toContain(secret);
        expect(shown).toContain('***');
        const viaQuery = `postgres://secure@127.0.0.1/app?password=${encodeURIComponent(secret)}`;
        expect(withoutPassword(`role "${secret}"`, viaQuery)).toBe('role "***"');
      }),
    );
  });

  it('shownUrl keeps the address and drops the password, in the authority or the query', () => {
    expect(shownUrl('postgres://secure:s3cretPW@127.0.0.1:5432/app')).toBe(
      'postgres://secure@127.0.0.1:5432/app',
    );
    expect(shownUrl('postgres://secure@db/app?password=s3cretPW&sslmode=require')).toBe(
      'postgres://secure@db/app?sslmode=require',
    );
    expect(shownUrl('postgres://secure@db/app')).toBe('postgres://secure@db/app');
  });
});
