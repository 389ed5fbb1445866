import { EVENT_TYPES } from './events/event-members.js';
import { anyEventJsonSchema, eventJsonSchema } from './events/event-schema.js';
import { signRequestJsonSchema } from './sign-request/sign-request-schema.js';

/**
 * The published JSON Schema files (name → document), generated from the same
 * tables as the decoders. `npm run schema` writes them to `docs/schema/`; a
 * test fails when the committed files drift from this.
 */
export const schemaFiles = (): ReadonlyMap<string, object> =>
  new Map<string, object>([
    ['event.schema.json', anyEventJsonSchema()],
    ...EVENT_TYPES.map((type) => [`${type}.schema.json`, eventJsonSchema(type)] as const),
    ['sign-request.schema.json', signRequestJsonSchema()],
  ]);
