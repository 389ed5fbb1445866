import { jsonSchemaFor } from './shape-json-schema.js';
import { SIGN_REQUEST_SHAPE } from './sign-request-shape.js';

/** `$id` of the published sign-request schema, in line with the event schemas. */
export const SIGN_REQUEST_SCHEMA_ID = 'https://signfold.dev/schema/sign-request.schema.json';

const COMMENT =
  'Generated from the description that decodeSignRequest reads; do not edit by hand. ' +
  'Not expressible here and checked by the decoder only: savedTime must be a real calendar date ' +
  '(days per month, leap years); ids are unique within participants and within fields; ' +
  'fields[].roleId names a participant role.id and fieldData[].fieldId names a field id.';

/**
 * The JSON Schema (draft 2020-12) of the sign-request representation (docs/service-interface.md),
 * generated from the same description as {@link decodeSignRequest}. Returns a
 * fresh object on every call.
 */
export const signRequestJsonSchema = (): object =>
  jsonSchemaFor(SIGN_REQUEST_SHAPE, SIGN_REQUEST_SCHEMA_ID, COMMENT);
