/**
 * A small declarative description of a JSON representation. The decoder, the
 * encoder and the JSON Schema generator all interpret the same description, so
 * the three cannot drift apart: a rule exists in all of them or in none.
 */
import type { StringFormatName } from './string-formats.js';

/** Integer range of a member; ids use the whole safe-integer range. */
export interface IntegerNode {
  readonly kind: 'integer';
  readonly minimum: number;
}

/** A string, optionally restricted by a named format (see `string-formats.ts`). */
export interface StringNode {
  readonly kind: 'string';
  readonly format?: StringFormatName;
}

/** Describes a boolean member. */
export interface BooleanNode {
  readonly kind: 'boolean';
}

/**
 * A closed set of strings. With `caseInsensitive`, any ASCII letter case is
 * accepted and the value is held as listed; otherwise the case must match.
 */
export interface EnumNode {
  readonly kind: 'enum';
  readonly values: readonly string[];
  readonly caseInsensitive: boolean;
}

/**
 * An open set of strings: listed values (any ASCII case) become the listed
 * string, anything else is kept verbatim as `{ other }`.
 */
export interface OpenEnumNode {
  readonly kind: 'open-enum';
  readonly values: readonly string[];
}

/** Describes an array member and its elements. */
export interface ArrayNode {
  readonly kind: 'array';
  readonly items: ShapeNode;
}

/** One member of an object. */
export interface MemberNode {
  readonly required: boolean;
  readonly description: string;
  readonly shape: ShapeNode;
}

/** An object; members not listed are ignored by the decoder and never emitted. */
export interface ObjectNode {
  readonly kind: 'object';
  /** Name of the definition in the JSON Schema (`$defs`). */
  readonly title: string;
  readonly description: string;
  readonly members: Readonly<Record<string, MemberNode>>;
}

/** Any node of a description. */
export type ShapeNode =
  | IntegerNode
  | StringNode
  | BooleanNode
  | EnumNode
  | OpenEnumNode
  | ArrayNode
  | ObjectNode;

declare const decodesTo: unique symbol;

/**
 * A node that decodes to `T`. The phantom member is a function type so that
 * the check is invariant: a description must produce exactly the declared type.
 */
export type Shape<T> = ShapeNode & { readonly [decodesTo]?: (value: T) => T };

/** An object node that decodes to `T`; a root description must be one. */
export type ObjectShape<T> = ObjectNode & { readonly [decodesTo]?: (value: T) => T };

/** A value of an open enum: a listed value, or any other string kept as given. */
export type OpenEnum<Known extends string> = Known | { readonly other: string };

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** Member descriptions of `T`: every key of `T` exactly once, optional iff optional in `T`. */
export type Members<T> = {
  readonly [K in keyof T]-?: K extends OptionalKeys<T>
    ? {
        readonly required: false;
        readonly description: string;
        readonly shape: Shape<Exclude<T[K], undefined>>;
      }
    : { readonly required: true; readonly description: string; readonly shape: Shape<T[K]> };
};

/** Describes a safe integer of at least `minimum` (default: the lowest safe integer). */
export const integerShape = <T extends number>(
  minimum: number = Number.MIN_SAFE_INTEGER,
): Shape<T> => ({
  kind: 'integer',
  minimum,
});

/** Describes a string, optionally checked against a named format. */
export const stringShape = <T extends string = string>(format?: StringFormatName): Shape<T> =>
  format === undefined ? { kind: 'string' } : { kind: 'string', format };

/** Describes a boolean. */
export const booleanShape = (): Shape<boolean> => ({ kind: 'boolean' });

/** Describes a closed set of strings (see {@link EnumNode} for letter case). */
export const enumShape = <const V extends readonly string[]>(
  values: V,
  caseInsensitive: boolean,
): Shape<V[number]> => ({ kind: 'enum', values, caseInsensitive });

/** Describes an open set of strings whose listed values are lower case. */
export const openEnumShape = <const V extends readonly string[]>(
  values: V,
): Shape<OpenEnum<V[number]>> => ({ kind: 'open-enum', values });

/** Describes an array whose every element has the shape `items`. */
export const arrayShape = <T>(items: Shape<T>): Shape<readonly T[]> => ({ kind: 'array', items });

/** Describes an object with exactly the members of `T`. */
export const objectShape = <T>(
  title: string,
  description: string,
  members: Members<T>,
): ObjectShape<T> =>
  // Members<T> is a Record<string, MemberNode> at run time; the mapped type only adds checks.
  ({ kind: 'object', title, description, members: members as Record<string, MemberNode> });
