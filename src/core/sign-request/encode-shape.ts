/**
 * Turns a decoded value back into its wire form by walking the same
 * description the decoder uses, so encoding emits exactly the members the
 * decoder reads and nothing a caller may have attached to the value.
 */
import type { ShapeNode } from './shape.js';

const own = (value: object, name: string): unknown =>
  Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;

/**
 * Encodes `value`, which must have been produced by (or be valid for) `node`.
 * Enums are already held in their wire spelling; open-enum `{ other }` values
 * are emitted as the text they hold.
 */
export const encodeNode = (node: ShapeNode, value: unknown): unknown => {
  switch (node.kind) {
    case 'integer':
    case 'string':
    case 'boolean':
    case 'enum':
      return value;
    case 'open-enum':
      return typeof value === 'object' && value !== null ? own(value, 'other') : value;
    case 'array':
      return Array.isArray(value) ? value.map((element) => encodeNode(node.items, element)) : [];
    case 'object': {
      const out: Record<string, unknown> = {};
      if (typeof value !== 'object' || value === null) return out;
      for (const [name, member] of Object.entries(node.members)) {
        const memberValue = own(value, name);
        if (memberValue !== undefined) out[name] = encodeNode(member.shape, memberValue);
      }
      return out;
    }
  }
};
