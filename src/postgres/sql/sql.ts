/**
 * The `sql` tagged template: SQL built from pieces without writing a value
 * into its text. What a template interpolates is a value (it becomes a
 * parameter), or a fragment (another `sql` template, an identifier from
 * {@link sql.id}, a list from {@link sql.join}), spliced in with its own
 * values. A fragment keeps its text and its values apart, unnumbered: the
 * `$1`… of a statement are written once, when its text is asked for, so
 * fragments compose in any order and any depth with nothing to renumber.
 */

/** A piece of SQL and the values its parameters take; a whole statement too. */
export class Sql {
  #text: string | undefined;

  /**
   * Use {@link sql}. `strings` is the text around the values, one more than
   * there are `values`, the values of the parameters in the order they appear.
   */
  constructor(
    readonly strings: readonly string[],
    readonly values: unknown[],
  ) {}

  /** The text with each value as its parameter, `$1` for the first, numbered at the first call. */
  get text(): string {
    this.#text ??= this.strings.reduce((text, piece, i) => `${text}$${i}${piece}`);
    return this.#text;
  }

  /**
   * The text with each value written by `write` (its number from 1 and the
   * value) where its parameter would stand: for statements the protocol lets
   * carry no parameters (see sql-literal.ts).
   */
  render(write: (value: unknown, n: number) => string): string {
    return this.strings.reduce(
      (text, piece, i) => `${text}${write(this.values[i - 1], i)}${piece}`,
    );
  }
}

/**
 * Text and values laid end to end, a fragment's flattened into them: what a
 * template and a joined list build.
 */
class Pieces {
  readonly texts: string[] = [''];
  readonly values: unknown[] = [];

  text(text: string): void {
    this.texts[this.texts.length - 1] += text;
  }

  part(part: unknown): void {
    if (!(part instanceof Sql)) {
      this.values.push(part);
      this.texts.push('');
      return;
    }
    part.strings.forEach((text, i) => {
      if (i > 0) this.part(part.values[i - 1]);
      this.text(text);
    });
  }

  sql(): Sql {
    return new Sql(this.texts, this.values);
  }
}

/** Builds a fragment: the template's values become parameters; fragments in it are spliced in. */
const tag = (strings: TemplateStringsArray, ...parts: readonly unknown[]): Sql => {
  const pieces = new Pieces();
  strings.forEach((text, i) => {
    if (i > 0) pieces.part(parts[i - 1]);
    pieces.text(text);
  });
  return pieces.sql();
};

/** An identifier in double quotes (quotes in it doubled), so no name is ever read as SQL. */
const quoted = (name: string): string => {
  if (name.length === 0 || name.includes('\0')) {
    throw new TypeError(`not an SQL identifier: ${JSON.stringify(name)}`);
  }
  return `"${name.replaceAll('"', '""')}"`;
};

/**
 * `names` as one qualified identifier, each quoted: `sql.id(schema, 'events')`
 * is `"signfold"."events"`. Quoted, a name is taken exactly as written (no
 * case folding), which for signfold's lower-case names is what unquoted
 * reads too.
 */
const id = (...names: readonly string[]): Sql => {
  if (names.length === 0) throw new TypeError('an SQL identifier needs a name');
  return new Sql([names.map(quoted).join('.')], []);
};

const EMPTY = new Sql([''], []);

/** `fragments` one after another with `separator` between them; none is the empty fragment. */
const join = (fragments: readonly Sql[], separator: Sql = tag`, `): Sql => {
  const pieces = new Pieces();
  fragments.forEach((fragment, i) => {
    if (i > 0) pieces.part(separator);
    pieces.part(fragment);
  });
  return pieces.sql();
};

/**
 * The `sql` tag, with its helpers: `sql.id` for identifiers, `sql.join` for
 * lists of fragments, `sql.empty` for nothing.
 */
export const sql = Object.assign(tag, { id, join, empty: EMPTY });
