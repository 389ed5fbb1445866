/**
 * The type errors a reader would see compiling one documentation snippet
 * under `--strict` with Node's module resolution, against the built
 * package's declarations; with `dom`, the DOM's types too (fetch, Response).
 */
import { sep } from 'node:path';
import ts from 'typescript';

/**
 * Declaration files parsed once for the worker: the standard library, `@types/node` and the built
 * package do not change during a run, and parsing them is most of a snippet's compile. A parsed
 * file may serve many programs (TypeScript's language service shares them the same way); the
 * snippets themselves are read afresh each time.
 */
const parsed = new Map<string, ts.SourceFile>();
const lasting = (file: string): boolean =>
  file.endsWith('.d.ts') &&
  (file.includes(`${sep}node_modules${sep}`) || file.includes(`${sep}dist${sep}`));

const hostFor = (options: ts.CompilerOptions): ts.CompilerHost => {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, fresh) => {
    if (!lasting(file)) return read(file, language, onError, fresh);
    let source = parsed.get(file);
    if (source === undefined) {
      source = read(file, language, onError, fresh);
      if (source !== undefined) parsed.set(file, source);
    }
    return source;
  };
  return host;
};

/** Every diagnostic of `file`, as text (empty: it compiles). */
export const strictTypeErrors = (file: string, options: { readonly dom: boolean }): string[] => {
  const compilerOptions: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: options.dom ? ['lib.es2023.d.ts', 'lib.dom.d.ts'] : ['lib.es2023.d.ts'],
    types: ['node'],
    noEmit: true,
    skipLibCheck: true,
  };
  return ts
    .getPreEmitDiagnostics(ts.createProgram([file], compilerOptions, hostFor(compilerOptions)))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
};
