import {
  EVENT_MEMBERS,
  EVENT_TYPES,
  type EventType,
  MEMBER_KINDS,
  type MemberName,
  WIRE_PARTICIPANT_NAME,
} from './event-members.js';

/** A JSON Schema document (draft 2020-12), as a plain object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const ID_SCHEMA = {
  type: 'integer',
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
} as const;
const STRING_SCHEMA = { type: 'string' } as const;

const memberSchema = (name: MemberName) =>
  MEMBER_KINDS[name] === 'id' ? ID_SCHEMA : STRING_SCHEMA;

/**
 * The JSON Schema of one event type, derived from the same member table as
 * the decoder. Members of other types are forbidden (`false`); members no type
 * defines are allowed, as in the decoder's default (lenient) mode.
 */
export const eventJsonSchema = (type: EventType): JsonSchema => {
  const names: readonly MemberName[] = EVENT_MEMBERS[type];
  const properties: Record<string, unknown> = { type: { const: type } };
  const required: string[] = ['type'];
  for (const name of Object.keys(MEMBER_KINDS) as MemberName[]) {
    properties[name] = names.includes(name) ? memberSchema(name) : false;
    if (names.includes(name) && name !== 'participantName') required.push(name);
  }
  const hasParticipant = names.includes('participantName');
  properties[WIRE_PARTICIPANT_NAME] = hasParticipant ? STRING_SCHEMA : false;
  return {
    $schema: SCHEMA_DIALECT,
    $id: `https://signfold.dev/schema/${type}.schema.json`,
    title: type,
    description: `The "${type}" event notification (docs/service-interface.md).`,
    type: 'object',
    properties,
    required,
    ...(hasParticipant
      ? {
          anyOf: [{ required: [WIRE_PARTICIPANT_NAME] }, { required: ['participantName'] }],
          $comment: `The participant name may be spelled "${WIRE_PARTICIPANT_NAME}" (as published) or "participantName"; when both are present they must be equal.`,
        }
      : {}),
  };
};

/** The schema of any event: exactly one of the 12 per-type schemas. */
export const anyEventJsonSchema = (): JsonSchema => ({
  $schema: SCHEMA_DIALECT,
  $id: 'https://signfold.dev/schema/event.schema.json',
  title: 'SignEvent',
  description: 'Any event notification of the e-signature service.',
  oneOf: EVENT_TYPES.map((type) => ({ $ref: `${type}.schema.json` })),
});
