/**
 * Decodes a signature value strictly. Node's own base64 decoder skips
 * characters it does not know, so `abc!` and `abc` would both verify; only the
 * canonical text of the bytes is accepted here (padding optional), and hex in
 * either letter case, so a changed character never decodes to the same MAC.
 */
import type { SignatureEncoding } from './webhook-types.js';

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The bytes of `value`, or `undefined` when it is not exactly one encoded value. */
export const decodeSignature = (
  value: string,
  encoding: SignatureEncoding,
): Uint8Array | undefined => {
  if (encoding === 'hex') return HEX.test(value) ? Buffer.from(value, 'hex') : undefined;
  if (!BASE64.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  const canonical = bytes.toString('base64');
  return value === canonical || value === canonical.replace(/=+$/, '') ? bytes : undefined;
};
