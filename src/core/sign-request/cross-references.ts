/**
 * Rules that span members (docs/service-interface.md): ids unique within `participants`
 * and within `fields`, and references that must name an existing record. They
 * read the raw input so that they also run, and report, when other members are
 * invalid; a set of ids is only trusted when every id in it could be read.
 */
import { type DecodeError, decodeError } from '../decode-error.js';
import { isFull, isJsonObject } from './decode-shape.js';

type Errors = DecodeError[];

/** An own member of a JSON object, or `undefined`. */
const member = (value: unknown, name: string): unknown =>
  isJsonObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;

/** A safe-integer id, or `undefined` when absent or invalid (the decoder reports that). */
const idOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;

/** The ids read from each element, `undefined` where unreadable (holes included). */
const readIds = (list: readonly unknown[], read: (element: unknown) => unknown) => {
  const ids: (number | undefined)[] = [];
  for (let i = 0; i < list.length; i++) ids.push(idOf(read(list[i])));
  return ids;
};

/** The set of ids, or `undefined` if one is unreadable: then nothing can be called unknown. */
const completeSet = (ids: readonly (number | undefined)[]): ReadonlySet<number> | undefined =>
  ids.every((id) => id !== undefined) ? new Set(ids) : undefined;

/** Reports each repeated id at its later position, naming the first holder. */
const reportDuplicates = (
  ids: readonly (number | undefined)[],
  listPath: string,
  errors: Errors,
) => {
  const firstAt = new Map<number, number>();
  ids.forEach((id, index) => {
    if (id === undefined || isFull(errors)) return;
    const first = firstAt.get(id);
    if (first === undefined) {
      firstAt.set(id, index);
      return;
    }
    const message = `duplicate id ${id}: ${listPath}[${first}].id has it too`;
    errors.push(decodeError('invalid-value', `${listPath}[${index}].id`, message));
  });
};

const checkReference = (
  value: unknown,
  path: string,
  known: ReadonlySet<number>,
  target: string,
  errors: Errors,
): void => {
  const id = idOf(value);
  if (id === undefined || known.has(id) || isFull(errors)) return;
  errors.push(decodeError('unknown-reference', path, `no ${target} has id ${id}`));
};

/**
 * Checks id uniqueness and cross references of a sign-request object,
 * appending problems to `errors`. A reference check runs only when the
 * referenced array is present and every element's id in it is readable.
 */
export const checkCrossReferences = (
  input: Readonly<Record<string, unknown>>,
  errors: Errors,
): void => {
  const participants = member(input, 'participants');
  const fields = member(input, 'fields');
  if (Array.isArray(participants)) {
    reportDuplicates(
      readIds(participants, (p) => member(p, 'id')),
      'participants',
      errors,
    );
  }
  const fieldIdList = Array.isArray(fields) ? readIds(fields, (f) => member(f, 'id')) : undefined;
  if (fieldIdList !== undefined) reportDuplicates(fieldIdList, 'fields', errors);
  const roleIds = Array.isArray(participants)
    ? completeSet(readIds(participants, (p) => member(member(p, 'role'), 'id')))
    : undefined;
  if (roleIds !== undefined && Array.isArray(fields)) {
    for (let f = 0; f < fields.length && !isFull(errors); f++) {
      const roleId = member(fields[f], 'roleId');
      checkReference(roleId, `fields[${f}].roleId`, roleIds, "participant's role", errors);
    }
  }
  const fieldIds = fieldIdList === undefined ? undefined : completeSet(fieldIdList);
  if (fieldIds === undefined || !Array.isArray(participants)) return;
  for (let p = 0; p < participants.length && !isFull(errors); p++) {
    const fieldData = member(participants[p], 'fieldData');
    if (!Array.isArray(fieldData)) continue;
    for (let d = 0; d < fieldData.length && !isFull(errors); d++) {
      const path = `participants[${p}].fieldData[${d}].fieldId`;
      checkReference(member(fieldData[d], 'fieldId'), path, fieldIds, 'field', errors);
    }
  }
};
