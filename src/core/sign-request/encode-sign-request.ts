import { encodeNode } from './encode-shape.js';
import type { SignRequest } from './sign-request.js';
import { SIGN_REQUEST_SHAPE } from './sign-request-shape.js';

/**
 * Encodes a sign request as the wire JSON object docs/service-interface.md
 * describes: `status` in lower case, participant status known values in lower
 * case and unknown values as received, members in the order of its tables.
 * The result is a fresh object; `decodeSignRequest(encodeSignRequest(x))`
 * equals `x`.
 */
export const encodeSignRequest = (signRequest: SignRequest): object =>
  encodeNode(SIGN_REQUEST_SHAPE, signRequest) as object;
