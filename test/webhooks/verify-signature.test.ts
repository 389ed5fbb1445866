/**
 * Signature verification: the defaults of the contract, every algorithm and
 * encoding, prefixes, rotation (several secrets, several values), a signed
 * timestamp refusing old and future deliveries, and the laws by fast-check:
 * a correct signature by any secret of the set verifies; any single-byte
 * change to the body, or any change to the signature's value, fails.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { signatureScheme } from '../../src/webhooks/signature-options.js';
import { verifySignature } from '../../src/webhooks/verify-signature.js';
import { verifyingKeys } from '../../src/webhooks/verifying-keys.js';
import type { SignatureOptions } from '../../src/webhooks/webhook-types.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';

const RUNS = count(100, 2000);
const NOW = new Date('2026-11-23T12:00:00.000Z');
const NOW_SECONDS = String(NOW.getTime() / 1000);
const body = new TextEncoder().encode('{"type":"template-deleted","companyId":1}');

const verify = (
  headers: Record<string, string | string[]>,
  secrets: readonly string[],
  options: SignatureOptions = {},
  bytes: Uint8Array = body,
) => verifySignature(signatureScheme(options), verifyingKeys(secrets, 'hmac'), headers, bytes, NOW);

describe('the default scheme (the contract)', () => {
  it('is the hex HMAC-SHA256 of the raw body in x-signature, with or without sha256=', () => {
    const hex = createHmac('sha256', 'k').update(body).digest('hex');
    expect(signWebhookBody(body, 'k')).toBe(hex);
    expect(verify({ 'x-signature': hex }, ['k']).isOk()).toBe(true);
    expect(verify({ 'x-signature': `sha256=${hex}` }, ['k']).isOk()).toBe(true);
    // Header names are matched case-insensitively; upper-case hex is the same MAC.
    expect(verify({ 'X-Signature': hex.toUpperCase() }, ['k']).isOk()).toBe(true);
  });

  it('refuses a missing header, a wrong secret, another prefix, garbage', () => {
    const hex = signWebhookBody(body, 'k');
    expect(verify({}, ['k'])._unsafeUnwrapErr()).toBe('missing signature header x-signature');
    expect(verify({ 'x-signature': hex }, ['other'])._unsafeUnwrapErr()).toBe(
      'signature does not match',
    );
    expect(verify({ 'x-signature': `sha1=${hex}` }, ['k']).isErr()).toBe(true);
    expect(verify({ 'x-signature': `${hex}00` }, ['k']).isErr()).toBe(true);
    expect(verify({ 'x-signature': hex.slice(2) }, ['k']).isErr()).toBe(true);
    expect(verify({ 'x-signature': 'zz' }, ['k']).isErr()).toBe(true);
    expect(verify({ 'x-signature': hex }, [])._unsafeUnwrapErr()).toMatch(/no secret/);
  });
});

describe.each([
  ['sha256', 'hex'],
  ['sha256', 'base64'],
  ['sha1', 'hex'],
  ['sha1', 'base64'],
  ['sha512', 'hex'],
  ['sha512', 'base64'],
] as const)('%s in %s', (algorithm, encoding) => {
  const options: SignatureOptions = { algorithm, encoding, header: 'x-sig' };
  const value = createHmac(algorithm, 'secret').update(body).digest(encoding);

  it('verifies the HMAC computed by node:crypto, with or without its prefix', () => {
    expect(signWebhookBody(body, 'secret', options)).toBe(value);
    expect(verify({ 'x-sig': value }, ['secret'], options).isOk()).toBe(true);
    expect(verify({ 'x-sig': `${algorithm}=${value}` }, ['secret'], options).isOk()).toBe(true);
  });

  it('refuses the same MAC by another algorithm or in another encoding', () => {
    const other = algorithm === 'sha256' ? 'sha512' : 'sha256';
    const wrongAlgorithm = createHmac(other, 'secret').update(body).digest(encoding);
    expect(verify({ 'x-sig': wrongAlgorithm }, ['secret'], options).isErr()).toBe(true);
    const wrongEncoding = createHmac(algorithm, 'secret')
      .update(body)
      .digest(encoding === 'hex' ? 'base64' : 'hex');
    expect(verify({ 'x-sig': wrongEncoding }, ['secret'], options).isErr()).toBe(true);
  });
});

describe('base64 is read strictly', () => {
  const options: SignatureOptions = { encoding: 'base64' };
  const value = signWebhookBody(body, 'k', options);

  it('accepts it padded or not, refuses characters Node would skip and other trailing bits', () => {
    expect(value.endsWith('=')).toBe(true);
    expect(verify({ 'x-signature': value.replace(/=+$/, '') }, ['k'], options).isOk()).toBe(true);
    // Buffer.from(…, 'base64') ignores '!' and '.': the same bytes, but not the text sent.
    expect(
      verify({ 'x-signature': `${value.slice(0, 10)}!${value.slice(10)}` }, ['k'], options).isErr(),
    ).toBe(true);
    expect(verify({ 'x-signature': `${value}.` }, ['k'], options).isErr()).toBe(true);
    // The last character before '=' carries 2 unused bits: a change there decodes to the same
    // bytes in Node, and is refused here.
    const last = value.replace(/=+$/, '').at(-1) ?? 'A';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] ?? 'A';
    const changed = value.replace(/.(=+)$/, `${sibling}$1`);
    expect(Buffer.from(changed, 'base64')).toEqual(Buffer.from(value, 'base64'));
    expect(verify({ 'x-signature': changed }, ['k'], options).isErr()).toBe(true);
  });
});

describe('rotation', () => {
  it('verifies a signature by any of several secrets', () => {
    for (const secret of ['old', 'new']) {
      const value = signWebhookBody(body, secret);
      expect(verify({ 'x-signature': value }, ['old', 'new']).isOk()).toBe(true);
    }
    expect(verify({ 'x-signature': signWebhookBody(body, 'gone') }, ['old', 'new']).isErr()).toBe(
      true,
    );
  });

  it('reads several values in one header (comma-separated) and in several headers', () => {
    const theirs = signWebhookBody(body, 'not ours');
    const ours = signWebhookBody(body, 'k');
    expect(verify({ 'x-signature': `${theirs}, sha256=${ours}` }, ['k']).isOk()).toBe(true);
    expect(verify({ 'x-signature': [theirs, ours] }, ['k']).isOk()).toBe(true);
    // DocuSign: X-DocuSign-Signature-1, -2 …, base64, no prefix.
    const docusign: SignatureOptions = {
      header: ['x-docusign-signature-1', 'x-docusign-signature-2'],
      encoding: 'base64',
      prefix: '',
    };
    const signed = signWebhookBody(body, 'k2', docusign);
    const headers = {
      'X-DocuSign-Signature-1': signWebhookBody(body, 'k1', docusign),
      'X-DocuSign-Signature-2': signed,
    };
    expect(verify(headers, ['k2'], docusign).isOk()).toBe(true);
    expect(verify(headers, ['k3'], docusign).isErr()).toBe(true);
  });

  it('reads a Fetch-style Headers (repeated headers joined with commas)', () => {
    const headers = new Headers();
    headers.append('x-signature', signWebhookBody(body, 'a'));
    headers.append('x-signature', signWebhookBody(body, 'k'));
    expect(
      verifySignature(signatureScheme(), verifyingKeys(['k'], 'hmac'), headers, body, NOW).isOk(),
    ).toBe(true);
  });
});

describe('a signed timestamp', () => {
  const options: SignatureOptions = { timestamp: { header: 'x-timestamp', toleranceSeconds: 300 } };
  const at = (seconds: number) => {
    const timestamp = String(Number(NOW_SECONDS) + seconds);
    return {
      'x-timestamp': timestamp,
      'x-signature': signWebhookBody(body, 'k', options, timestamp),
    };
  };

  it('signs the timestamp, a dot and the body, and accepts it within the tolerance, either way', () => {
    const payload = Buffer.concat([Buffer.from(`${NOW_SECONDS}.`), body]);
    expect(at(0)['x-signature']).toBe(createHmac('sha256', 'k').update(payload).digest('hex'));
    for (const seconds of [0, -300, 300, -1, 1])
      expect(verify(at(seconds), ['k'], options).isOk()).toBe(true);
  });

  it('refuses a replayed (old) delivery and one from the future, even correctly signed', () => {
    expect(verify(at(-301), ['k'], options)._unsafeUnwrapErr()).toBe(
      'timestamp is 301 s old, over the tolerance of 300 s',
    );
    expect(verify(at(3600), ['k'], options)._unsafeUnwrapErr()).toBe(
      'timestamp is 3600 s in the future, over the tolerance of 300 s',
    );
  });

  it('refuses a missing or malformed timestamp, and a signature over the body alone', () => {
    const { 'x-signature': signature } = at(0);
    expect(verify({ 'x-signature': signature }, ['k'], options)._unsafeUnwrapErr()).toMatch(
      /missing timestamp/,
    );
    for (const bad of ['1.5e9', '-1', 'now', '']) {
      expect(verify({ 'x-signature': signature, 'x-timestamp': bad }, ['k'], options).isErr()).toBe(
        true,
      );
    }
    const bodyOnly = { 'x-timestamp': NOW_SECONDS, 'x-signature': signWebhookBody(body, 'k') };
    expect(verify(bodyOnly, ['k'], options).isErr()).toBe(true);
    // The same signature with another timestamp (moved into the window) fails.
    const moved = { ...at(-400), 'x-timestamp': NOW_SECONDS };
    expect(verify(moved, ['k'], options).isErr()).toBe(true);
  });
});

describe('invalid options throw when the scheme is made, never on a request', () => {
  it.each([
    [{ algorithm: 'md5' }, /signature.algorithm/],
    [{ encoding: 'base32' }, /signature.encoding/],
    [{ header: 'bad header' }, /signature.header/],
    [{ header: [] }, /at least one/],
    [{ timestamp: { header: 'x-t', toleranceSeconds: 0 } }, /toleranceSeconds/],
    [{ timestamp: { header: 'x-t', toleranceSeconds: Number.NaN } }, /toleranceSeconds/],
  ])('%j', (options, message) => {
    expect(() => signatureScheme(options as SignatureOptions)).toThrow(message);
  });
});

describe('laws', () => {
  const secretsArb = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 40 }), {
    minLength: 1,
    maxLength: 4,
  });
  const schemeArb = fc.record({
    algorithm: fc.constantFrom('sha256', 'sha1', 'sha512'),
    encoding: fc.constantFrom('hex', 'base64'),
  }) as fc.Arbitrary<SignatureOptions>;

  it('a signature by any secret of the set verifies', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        secretsArb,
        fc.nat(),
        schemeArb,
        (bytes, secrets, pick, options) => {
          const secret = secrets[pick % secrets.length] ?? '';
          const value = signWebhookBody(bytes, secret, options);
          expect(verify({ 'x-signature': value }, secrets, options, bytes).isOk()).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('any single-byte change to the MAC fails, in either encoding', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        secretsArb,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        schemeArb,
        (bytes, secrets, at, delta, options) => {
          const mac = Buffer.from(
            signWebhookBody(bytes, secrets[0] ?? '', options),
            options.encoding,
          );
          const i = at % mac.length;
          mac[i] = ((mac[i] ?? 0) + delta) % 256;
          const changed = mac.toString(options.encoding);
          expect(verify({ 'x-signature': changed }, secrets, options, bytes).isErr()).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('any single-byte change to the body fails', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        secretsArb,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        schemeArb,
        (bytes, secrets, at, delta, options) => {
          const value = signWebhookBody(bytes, secrets[0] ?? '', options);
          const changed = Uint8Array.from(bytes);
          const i = at % changed.length;
          changed[i] = ((changed[i] ?? 0) + delta) % 256;
          expect(verify({ 'x-signature': value }, secrets, options, changed).isErr()).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('any single-character change to the signature fails, but for the letter case of hex and the padding of base64', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        secretsArb,
        fc.nat(),
        fc.integer({ min: 1, max: 126 }),
        schemeArb,
        (bytes, secrets, at, code, options) => {
          const value = signWebhookBody(bytes, secrets[0] ?? '', options);
          const i = at % value.length;
          const replacement = String.fromCharCode(code);
          const same = (a: string, b: string) =>
            options.encoding === 'hex' ? a.toLowerCase() === b.toLowerCase() : a === b;
          fc.pre(!same(replacement, value[i] ?? ''));
          // Padding carries no bits: "…Q=" and "…Q," (the unpadded value, then an empty one) are one MAC.
          fc.pre(value[i] !== '=');
          const changed = `${value.slice(0, i)}${replacement}${value.slice(i + 1)}`;
          expect(verify({ 'x-signature': changed }, secrets, options, bytes).isErr()).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
