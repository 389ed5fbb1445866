/**
 * Literals in SQL text (for several statements sent as one): each must read
 * on the server exactly as the same value bound as a parameter, whatever
 * `standard_conforming_strings` says, for the hostile corpus and for random
 * text; and the values that cannot be written safely are refused.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  idArrayLiteral,
  integerLiteral,
  textLiteral,
} from '../../../src/postgres/sql/sql-literal.js';
import { querySeveral, type SqlQueryable } from '../../../src/postgres/sql-client.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(1);

/** Every string of a JSON value, at any depth. */
const stringsOf = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, inner]) => [key, ...stringsOf(inner)])
      : [];

/** The corpus's raw lines and every string inside those that parse. PostgreSQL text holds no NUL. */
const hostileTexts = (): string[] => {
  const lines = readFileSync(HOSTILE_CORPUS, 'utf8').split('\n');
  const parsed = lines.flatMap((line) => {
    try {
      return stringsOf(JSON.parse(line));
    } catch {
      return [];
    }
  });
  return [...new Set([...lines, ...parsed, "o'brien", 'back\\slash', "\\'", "''\\\\"])].filter(
    (text) => !text.includes('\u0000'),
  );
};

/** The server's reading of each text, as a literal and as a parameter. */
const readings = async (
  texts: readonly string[],
): Promise<{ literal: string; bound: string }[]> => {
  const out: { literal: string; bound: string }[] = [];
  for (const text of texts) {
    const literal = await db.pool.query<{ v: string }>(`SELECT ${textLiteral(text)} AS v`);
    const bound = await db.pool.query<{ v: string }>('SELECT $1::text AS v', [text]);
    out.push({ literal: literal.rows[0]?.v ?? '', bound: bound.rows[0]?.v ?? '' });
  }
  return out;
};

describe('textLiteral', () => {
  for (const conforming of ['on', 'off']) {
    it(`reads as the bound parameter for every hostile text (standard_conforming_strings ${conforming})`, async () => {
      await db.pool.query(`SET standard_conforming_strings = ${conforming}`);
      try {
        const texts = hostileTexts();
        expect(texts.length).toBeGreaterThan(50);
        expect(texts.some((text) => text.includes('\\') && text.includes("'"))).toBe(true);
        for (const { literal, bound } of await readings(texts)) expect(literal).toBe(bound);
      } finally {
        await db.pool.query('RESET standard_conforming_strings');
      }
    });
  }

  it('reads as the bound parameter for random text (law)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 40 }).filter((t) => !t.includes('\u0000')),
        fc.constantFrom('on', 'off'),
        async (text, conforming) => {
          await db.pool.query(`SET standard_conforming_strings = ${conforming}`);
          const [{ literal, bound }] = (await readings([`'\\${text}\\'`])) as [
            { literal: string; bound: string },
          ];
          await db.pool.query('RESET standard_conforming_strings');
          expect(literal).toBe(bound);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('integerLiteral and idArrayLiteral', () => {
  it('write safe integers and ids as the server reads them', async () => {
    const ids = [0, -1, 7, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    const { rows } = await db.pool.query<{ ids: string[]; n: string }>(
      `SELECT ${idArrayLiteral(ids)}::bigint[] AS ids, ${integerLiteral(-42)}::bigint AS n`,
    );
    expect(rows[0]?.ids.map(Number)).toEqual(ids);
    expect(rows[0]?.n).toBe('-42');
    expect((await db.pool.query(`SELECT ${idArrayLiteral([])}::bigint[] AS ids`)).rows[0]).toEqual({
      ids: [],
    });
  });

  it('refuse what is not a safe integer, instead of writing it into the SQL', () => {
    for (const bad of [0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1e21]) {
      expect(() => integerLiteral(bad)).toThrow(/not a safe integer/);
      expect(() => idArrayLiteral([1, bad])).toThrow(/not an id/);
    }
    expect(() => idArrayLiteral(['1) OR (1=1' as unknown as number])).toThrow(/not an id/);
  });
});

describe('querySeveral', () => {
  it('answers one result per statement, in order, in one round trip', async () => {
    const results = await querySeveral<{ n: number }>(db.pool, [
      'SELECT 1 AS n',
      'SELECT 2 AS n UNION ALL SELECT 3',
      'SELECT 4 AS n WHERE false',
    ]);
    expect(results.map((r) => r.rows.map((row) => row.n))).toEqual([[1], [2, 3], []]);
    // One statement is answered with one result as well.
    expect((await querySeveral<{ n: number }>(db.pool, ['SELECT 5 AS n']))[0]?.rows).toEqual([
      { n: 5 },
    ]);
  });

  it('refuses a pool that answers several statements with one result', async () => {
    const lastOnly: SqlQueryable = {
      query: async <Row>() => ({ rows: [] as Row[], rowCount: 0 }),
    };
    await expect(querySeveral(lastOnly, ['SELECT 1', 'SELECT 2'])).rejects.toThrow(
      /2 statements sent as one answered 1 results/,
    );
  });

  it('rejects as a whole when one statement fails, and runs none of it', async () => {
    await db.pool.query('CREATE TABLE IF NOT EXISTS several_probe (n int)');
    await expect(
      querySeveral(db.pool, [
        'INSERT INTO several_probe VALUES (1)',
        'SELECT * FROM no_such_table',
      ]),
    ).rejects.toMatchObject({ code: '42P01' });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM several_probe')).rows).toEqual([
      { n: 0 },
    ]);
  });
});
