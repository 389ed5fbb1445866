/**
 * The `sql` tag: values become parameters, identifiers are quoted, fragments
 * nest, and a statement is numbered once, as a whole, 1..n in the order its
 * values appear; with literals only where a statement is sent with others.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Sql, sql } from '../../../src/postgres/sql/sql.js';
import { inlined } from '../../../src/postgres/sql/sql-literal.js';

describe('sql', () => {
  it('makes each value a parameter, never text', () => {
    const name = "x'); DROP TABLE events; --";
    const query = sql`SELECT * FROM t WHERE a = ${1} AND b = ${name}`;
    expect(query.text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2');
    expect(query.values).toEqual([1, name]);
    expect(sql`SELECT 1`.text).toBe('SELECT 1');
    expect(sql`SELECT 1`.values).toEqual([]);
  });

  it('quotes identifiers, doubling quotes, and qualifies them with dots', () => {
    expect(sql.id('signfold', 'events').text).toBe('"signfold"."events"');
    expect(sql.id('Odd "name"').text).toBe('"Odd ""name"""');
    expect(sql`SELECT * FROM ${sql.id('s', 't')} WHERE id = ${5}`.text).toBe(
      'SELECT * FROM "s"."t" WHERE id = $1',
    );
    expect(() => sql.id('')).toThrow(/identifier/);
    expect(() => sql.id('a\0b')).toThrow(/identifier/);
    expect(() => sql.id()).toThrow(/identifier/);
  });

  it('splices a fragment in a fragment, numbering the whole once', () => {
    const where = sql`a = ${1} AND b = ${sql`lower(${'B'})`}`;
    const query = sql`UPDATE t SET c = ${true} WHERE ${where} AND d = ${[2, 3]}`;
    expect(query.text).toBe('UPDATE t SET c = $1 WHERE a = $2 AND b = lower($3) AND d = $4');
    expect(query.values).toEqual([true, 1, 'B', [2, 3]]);
    // The same fragment twice: its values twice, each numbered where it stands.
    expect(sql`${where} OR ${where}`.text).toBe(
      'a = $1 AND b = lower($2) OR a = $3 AND b = lower($4)',
    );
  });

  it('joins lists, an empty list to nothing', () => {
    const columns = ['a', 'b', 'c'].map((name) => sql.id(name));
    expect(sql`SELECT ${sql.join(columns)} FROM t`.text).toBe('SELECT "a", "b", "c" FROM t');
    expect(sql.join([sql`${1}`, sql`${2}`], sql` OR `).text).toBe('$1 OR $2');
    expect(sql`SELECT 1${sql.join([])}`.text).toBe('SELECT 1');
    expect(sql.join([]).values).toEqual([]);
    expect(sql`a${sql.empty}b`.text).toBe('ab');
    // A value that is an empty array is still a value.
    expect(sql`x = ANY(${[]})`.values).toEqual([[]]);
  });

  it('numbers the parameters of any composition 1..n, with its values in the same order', () => {
    type Tree = { readonly query: Sql; readonly values: readonly unknown[] };
    const leaf = fc.oneof(
      fc.integer().map((n): Tree => ({ query: sql`v(${n})`, values: [n] })),
      fc.string().map((s): Tree => ({ query: sql`${s}`, values: [s] })),
      fc.constant<Tree>({ query: sql`k`, values: [] }),
      fc.stringMatching(/^[a-z]{1,8}$/).map((name): Tree => ({ query: sql.id(name), values: [] })),
    );
    const { tree } = fc.letrec<{ tree: Tree }>((self) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(self('tree'), { maxLength: 4 }).map(
          (parts): Tree => ({
            query: sql`(${sql.join(parts.map((part) => part.query))})`,
            values: parts.flatMap((part) => part.values),
          }),
        ),
        fc.tuple(self('tree'), self('tree')).map(
          ([a, b]): Tree => ({
            query: sql`f(${a.query}, ${b.query})`,
            values: [...a.values, ...b.values],
          }),
        ),
      ),
    }));
    fc.assert(
      fc.property(tree, ({ query, values }) => {
        const numbers = [...query.text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1]));
        expect(numbers).toEqual(values.map((_, i) => i + 1));
        expect(query.values).toEqual(values);
      }),
    );
  });

  it('writes values in as literals only when asked, by the literal rules', () => {
    const query = sql`SELECT 1 FROM ${sql.id('s', 'p')} WHERE a = ${7} AND o = ${"o'b\\"} AND id = ANY(${[1, 2]}::bigint[])`;
    expect(inlined(query)).toBe(
      `SELECT 1 FROM "s"."p" WHERE a = 7 AND o = E'o''b\\\\' AND id = ANY('{1,2}'::bigint[])`,
    );
    expect(() => inlined(sql`${1.5}`)).toThrow(/safe integer/);
    expect(() => inlined(sql`${[1, 'x']}`)).toThrow(/not an id/);
    expect(() => inlined(sql`${null}`)).toThrow(/no literal/);
  });
});
