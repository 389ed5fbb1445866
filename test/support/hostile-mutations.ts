/**
 * Random mutations of the hostile corpus's id values (fast-check), shared by the corpus tests
 * of every path: the id members of a line get values the core must judge, and the stores must
 * route and key, the same way (fractions, huge and negative numbers, strings, objects...).
 * The lines of a delivery id given twice are left alone, so the redelivery stays a redelivery.
 */
import fc from 'fast-check';

/** An id member and its value, as the corpus writes them. */
export const ID_MEMBER =
  /"(companyId|templateId|signRequestId|participantId|roleId|ownerId|senderId)":(-?[0-9][0-9.eE+-]*|"[^"]*"|null|\{[^{}]*\})/g;

/** Id values the core must judge, and the store must route and key, the same way. */
export const idValueArb = fc.oneof(
  fc.constantFrom(
    '0.5',
    '1e400',
    '-1e400',
    '9223372036854775808',
    '-9223372036854775809',
    '9007199254740993',
    '-0',
    '1e-7',
    '7.25',
    '1E2',
    '5001.0',
    '5001',
    '1001',
    '3',
    '-3',
    '"5001"',
    'null',
    '{"$gt":1}',
    '[]',
    'true',
  ),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double({ noNaN: true }).map((d) => JSON.stringify(d)),
);

/** One mutation: the `which`th id member (modulo their number) of 0-based line `line` gets `value`. */
export interface IdMutation {
  readonly line: number;
  readonly which: number;
  readonly value: string;
}

/** The 0-based lines of a delivery id given twice. */
const redelivered = (lines: readonly string[]): Set<number> => {
  const byId = new Map<string, number[]>();
  lines.forEach((line, i) => {
    const id = /"deliveryId":"([^"]*)"/.exec(line)?.[1];
    if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), i]);
  });
  return new Set([...byId.values()].filter((found) => found.length > 1).flat());
};

/**
 * Mutations of `corpus` (its bytes: one line is invalid UTF-8, hence latin1 throughout): 1 to 8
 * id values replaced, in lines that have one, are not redeliveries and are not huge.
 */
export const idMutationsArb = (corpus: Buffer): fc.Arbitrary<IdMutation[]> => {
  const lines = corpus.toString('latin1').split('\n');
  const skip = redelivered(lines);
  const mutable = lines.flatMap((line, i) =>
    !skip.has(i) && line.length < 5000 && line.match(ID_MEMBER) !== null ? [i] : [],
  );
  return fc.array(
    fc.record({ line: fc.constantFrom(...mutable), which: fc.nat(), value: idValueArb }),
    { minLength: 1, maxLength: 8 },
  );
};

/** `corpus` with the id values of `mutations` replaced. */
export const mutateIds = (corpus: Buffer, mutations: readonly IdMutation[]): Buffer => {
  const lines = corpus.toString('latin1').split('\n');
  for (const { line, which, value } of mutations) {
    const text = lines[line] ?? '';
    const matches = [...text.matchAll(ID_MEMBER)];
    const match = matches[which % matches.length];
    if (match?.index === undefined) continue;
    const replaced = `"${match[1]}":${value}`;
    lines[line] = text.slice(0, match.index) + replaced + text.slice(match.index + match[0].length);
  }
  return Buffer.from(lines.join('\n'), 'latin1');
};
