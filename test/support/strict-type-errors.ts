/**
 * The type errors a reader would see compiling one documentation snippet
 * under `--strict` with Node's module resolution, against the built
 * package's declarations; with `dom`, the DOM's types too (fetch, Response).
 */
import ts from 'typescript';

/** Every diagnostic of `file`, as text (empty: it compiles). */
export const strictTypeErrors = (file: string, options: { readonly dom: boolean }): string[] =>
  ts
    .getPreEmitDiagnostics(
      ts.createProgram([file], {
        strict: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: options.dom ? ['lib.es2023.d.ts', 'lib.dom.d.ts'] : ['lib.es2023.d.ts'],
        types: ['node'],
        noEmit: true,
        skipLibCheck: true,
      }),
    )
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
