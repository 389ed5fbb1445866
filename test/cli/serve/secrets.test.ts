/**
 * The pure parts of `signfold serve`'s configuration, in process: which
 * secrets the environment yields, and how a request target is matched to an
 * endpoint. The process-level behaviour is in serve.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../../src/cli/cli-error.js';
import { pathOf } from '../../../src/cli/serve/routes.js';
import { webhookSecrets } from '../../../src/cli/serve/secrets.js';

const names = fc.uniqueArray(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,8}$/), {
  minLength: 1,
  maxLength: 4,
});
const values = fc.constantFrom(undefined, '', 'a', 'same', 'rotated-key', ' ');

describe('webhookSecrets', () => {
  it('property: the secrets are exactly the distinct non-empty values; none is an error unless insecure', () => {
    fc.assert(
      fc.property(names, fc.array(values, { minLength: 4, maxLength: 4 }), (vars, picked) => {
        const env = Object.fromEntries(vars.map((name, i) => [name, picked[i]]));
        const expected = [
          ...new Set(vars.map((name) => env[name]).filter((v) => v !== undefined && v !== '')),
        ];
        let verified: ReturnType<typeof webhookSecrets> | CliError;
        try {
          verified = webhookSecrets(vars, env, false);
        } catch (cause) {
          verified = cause as CliError;
        }
        if (expected.length === 0) {
          expect(verified).toBeInstanceOf(CliError);
          expect((verified as CliError).message).toMatch(/^no webhook secret: set /);
          expect(webhookSecrets(vars, env, true)).toEqual({ verify: false });
        } else {
          expect(verified).toEqual({ verify: true, secrets: expected });
          // The flag that verifies nothing, with a secret set: refused, naming the variable only.
          expect(() => webhookSecrets(vars, env, true)).toThrow(/verifies nothing, yet /);
          try {
            webhookSecrets(vars, env, true);
          } catch (cause) {
            for (const secret of expected.filter((s) => s.length > 2)) {
              expect((cause as Error).message).not.toContain(secret);
            }
          }
        }
      }),
    );
  });
});

describe('pathOf', () => {
  it('property: the query string and fragment never change the path matched', () => {
    const segment = fc.stringMatching(/^[a-z0-9._~-]{0,8}$/);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), fc.string(), (segments, query) => {
        const path = `/${segments.join('/')}`;
        expect(pathOf(path)).toBe(path);
        expect(pathOf(`${path}?${query.replace(/#/g, '')}`)).toBe(path);
        expect(pathOf(`${path}#${query}`)).toBe(path);
      }),
    );
  });

  it('reads the absolute form, and leaves escapes and case as sent (so /WEBHOOKS is a 404)', () => {
    expect(pathOf('http://example.com/webhooks?x=1')).toBe('/webhooks');
    expect(pathOf('/web%68ooks')).toBe('/web%68ooks');
    expect(pathOf('/WEBHOOKS')).toBe('/WEBHOOKS');
    expect(pathOf(undefined)).toBe('/');
    // An empty first segment, not a host: before, new URL() read //x/webhooks as host x, path /webhooks.
    expect(pathOf('//x/webhooks')).toBe('//x/webhooks');
    expect(pathOf('*')).toBe('*');
  });
});
