/**
 * The reactor of docs/reactors.md, "One cancel for a whole request", run as
 * written: the snippet is taken from the page, compiled, and tested with the
 * test kit, so the page cannot show code that does not do what it says.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Reactor } from '../../src/core/reactors/reactor-types.js';
import { events, given } from '../../src/testing/index.js';
import { withBuiltImports } from '../support/built-imports.js';

const ROOT = resolve(import.meta.dirname, '../..');
const HOUR = 3_600_000;
let dir = '';
let reminders: Reactor;

beforeAll(async () => {
  const page = readFileSync(join(ROOT, 'docs/reactors.md'), 'utf8');
  const section = page.slice(page.indexOf('### One cancel for a whole request'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const transpiled = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const js = withBuiltImports(transpiled);
  dir = await mkdtemp(join(tmpdir(), 'signfold-docs-reactor-'));
  await writeFile(join(dir, 'example.mjs'), js);
  ({ reminders } = await import(pathToFileURL(join(dir, 'example.mjs')).href));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const request = { signRequestId: 42 };
const sent = (participantId: number) => events.participantSent({ ...request, participantId });

describe('the reactor of "One cancel for a whole request"', () => {
  it('reminds each participant under the request prefix, and a signature cancels its own', () => {
    given(events.signRequestSent(request))
      .when(sent(2))
      .thenEffects(reminders, [{ type: 'remind', key: 'remind:42/2', after: 72 * HOUR }]);
    given(events.signRequestSent(request), sent(2))
      .when(events.participantSigned({ ...request, participantId: 2 }))
      .thenEffects(reminders, [{ type: 'cancel', key: 'remind:42/2' }]);
  });

  it("a participant's decline cancels the whole request and names who was still waiting, from the state", () => {
    given(
      events.signRequestSent(request),
      sent(1),
      sent(2),
      sent(3),
      events.participantViewed({ ...request, participantId: 3 }),
      events.participantSigned({ ...request, participantId: 1 }),
    )
      .when(events.participantDeclined({ ...request, participantId: 2 }))
      .thenEffects(reminders, [
        { type: 'cancel', keyPrefix: 'remind:42/' },
        { type: 'tell-sender', signRequestId: 42, waiting: [3] },
      ]);
    given(events.signRequestSent(request), sent(1))
      .when(events.signRequestDeclined(request))
      .thenEffects(reminders, [{ type: 'cancel', keyPrefix: 'remind:42/' }]);
  });
});
