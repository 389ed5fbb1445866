/**
 * The insides stay readable: every function, method and function-valued constant at the top of a
 * module of `src/` fits on a screen or two (at most 120 lines; nested closures count toward the
 * function that holds them), the PostgreSQL adapter keeps its files in folders, and the two effect
 * executors share their core rather than repeat it. Read with TypeScript's own parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 120;

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

interface Measured {
  readonly where: string;
  readonly lines: number;
}

/** The top-level functions of `text`: declarations, class members, and functions held by constants. */
const functionsOf = (name: string, text: string): Measured[] => {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number): number => source.getLineAndCharacterOfPosition(position).line;
  const found: Measured[] = [];
  const measure = (node: ts.Node, label: string): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      found.push({
        where: `${name} ${label}`,
        lines: lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1,
      });
    } else if (ts.isClassLike(node)) {
      for (const member of node.members) {
        measure(member, `${label}.${member.name?.getText(source) ?? 'constructor'}`);
      }
    } else if (ts.isVariableStatement(node)) {
      for (const declaration of node.declarationList.declarations) {
        if (declaration.initializer !== undefined) {
          measure(declaration.initializer, declaration.name.getText(source));
        }
      }
    } else if (
      ts.isCallExpression(node) ||
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isSatisfiesExpression(node)
    ) {
      // `defineX(function …)`, `(… ) as T`: the function inside is still this constant's.
      ts.forEachChild(node, (child) => measure(child, label));
    } else if (ts.isObjectLiteralExpression(node)) {
      for (const property of node.properties) {
        const value = ts.isPropertyAssignment(property) ? property.initializer : property;
        measure(value, `${label}.${property.name?.getText(source) ?? ''}`);
      }
    } else if (ts.isExportAssignment(node)) {
      measure(node.expression, 'default');
    }
  };
  for (const statement of source.statements) {
    const label =
      ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)
        ? (statement.name?.text ?? 'default')
        : '';
    measure(statement, label);
  }
  return found;
};

/** Runs of `size` lines (trimmed, blank lines and comments left out) that both texts hold. */
const sharedRuns = (a: string, b: string, size: number): string[] => {
  const meaningful = (text: string): string[] =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^(\/\/|\/\*|\*)/.test(line));
  const windows = (lines: string[]): string[] =>
    lines
      .slice(0, Math.max(0, lines.length - size + 1))
      .map((_, i) => lines.slice(i, i + size).join('\n'));
  const ofA = new Set(windows(meaningful(a)));
  return windows(meaningful(b)).filter((run) => ofA.has(run));
};

describe('the shape of the code', () => {
  it('measures a function whole, closures included, and finds each kind of top-level function', () => {
    const body = (n: number) =>
      Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join('\n');
    const text = [
      `export function declared() {\n${body(3)}\n}`,
      `export const arrow = (x: number) => {\n${body(4)}\n  const inner = () => {\n${body(2)}\n  };\n  return inner;\n};`,
      `export class Holder {\n  method() {\n${body(5)}\n  }\n}`,
      `export const wrapped = defineThing(function named() {\n${body(1)}\n});`,
      'export const notAFunction = 3;',
    ].join('\n');
    expect(functionsOf('x.ts', text)).toEqual([
      { where: 'x.ts declared', lines: 5 },
      { where: 'x.ts arrow', lines: 11 },
      { where: 'x.ts Holder.method', lines: 7 },
      { where: 'x.ts wrapped', lines: 3 },
    ]);
  });

  it(`no top-level function of src/ is longer than ${MAX_LINES} lines`, () => {
    const long = files(SRC)
      .flatMap((file) => functionsOf(relative(ROOT, file), readFileSync(file, 'utf8')))
      .filter((measured) => measured.lines > MAX_LINES)
      .map(({ where, lines }) => `${where}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it('src/postgres/ holds at most 20 files side by side; the rest are in folders', () => {
    const direct = readdirSync(join(SRC, 'postgres'), { withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    );
    expect(direct.length).toBeLessThanOrEqual(20);
  });

  it('finds a run of six lines that two texts share, and none where they differ', () => {
    const run = Array.from({ length: 6 }, (_, i) => `step(${i});`).join('\n');
    expect(sharedRuns(`a();\n${run}\nb();`, `// said twice\n${run}`, 6)).toHaveLength(1);
    expect(sharedRuns(run, run.replace('step(3)', 'other(3)'), 6)).toEqual([]);
  });

  it('the two effect executors repeat no run of six lines: their claim, lease, retry and parking are written once', () => {
    const read = (path: string) => readFileSync(join(SRC, path), 'utf8');
    expect(
      sharedRuns(
        read('store/reactors/effect-executor.ts'),
        read('postgres/reactors/pg-effect-executor.ts'),
        6,
      ),
    ).toEqual([]);
  });
});
