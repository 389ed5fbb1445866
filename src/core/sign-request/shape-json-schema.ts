/**
 * JSON Schema (draft 2020-12) for a {@link ShapeNode} description. Objects
 * become `$defs` entries referenced by `$ref`, so each appears once.
 */
import { caseInsensitivePattern } from './ascii-case.js';
import type { ObjectNode, ShapeNode } from './shape.js';
import { STRING_FORMATS } from './string-formats.js';

type Schema = Record<string, unknown>;
type Definitions = Map<string, Schema>;

const objectSchema = (node: ObjectNode, defs: Definitions): Schema => {
  const properties: Schema = {};
  const required: string[] = [];
  for (const [name, member] of Object.entries(node.members)) {
    properties[name] = { description: member.description, ...nodeSchema(member.shape, defs) };
    if (member.required) required.push(name);
  }
  // Unknown members are ignored by the decoder, so the schema must allow them too.
  return {
    title: node.title,
    description: node.description,
    type: 'object',
    ...(required.length > 0 ? { required } : {}),
    properties,
  };
};

const nodeSchema = (node: ShapeNode, defs: Definitions): Schema => {
  switch (node.kind) {
    case 'integer':
      return { type: 'integer', minimum: node.minimum, maximum: Number.MAX_SAFE_INTEGER };
    case 'string':
      return node.format === undefined
        ? { type: 'string' }
        : { type: 'string', ...STRING_FORMATS[node.format].schema };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return node.caseInsensitive
        ? { type: 'string', pattern: caseInsensitivePattern(node.values) }
        : { type: 'string', enum: [...node.values] };
    case 'open-enum':
      // Unknown values are accepted, so the listed ones can only be examples.
      return { type: 'string', examples: [...node.values] };
    case 'array':
      return { type: 'array', items: nodeSchema(node.items, defs) };
    case 'object':
      if (!defs.has(node.title)) defs.set(node.title, objectSchema(node, defs));
      return { $ref: `#/$defs/${node.title}` };
  }
};

/**
 * Builds a standalone draft 2020-12 schema whose root is the object `root`,
 * with nested objects under `$defs`.
 */
export const jsonSchemaFor = (root: ObjectNode, id: string, comment: string): Schema => {
  const defs: Definitions = new Map();
  const rootSchema = objectSchema(root, defs);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    $comment: comment,
    ...rootSchema,
    $defs: Object.fromEntries(defs),
  };
};
