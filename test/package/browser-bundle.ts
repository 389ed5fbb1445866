/**
 * `signfold/core` and `signfold` (the domain and the engine) bundle for a
 * browser with no Node built-ins: esbuild bundles a small consumer of the
 * installed package for `platform: 'browser'`, chromium runs it on the example
 * log, and the state it folds equals what `signfold replay --json` gives for
 * the same log. The adapters (`signfold/file`) do not bundle, as they should not. Run by
 * packed.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBrowser } from '../support/browser.js';
import type { PackedApp } from './fixtures/packed-app.js';
import { exec } from './fixtures/scratch-app.js';

/** A web page's code: decodes and folds an NDJSON log as `signfold replay` does. */
const CONSUMER = `
import {
  decodeEvent, fold, initialState, listParticipants, listSignRequests, listTemplates,
} from 'signfold/core';
import { createProjector } from 'signfold';

/** Lines that are not JSON, and events the decoder refuses, are skipped (replay quarantines them). */
export const foldLog = (text) => {
  const decoded = [];
  const times = [];
  let invalid = 0;
  for (const line of text.split('\\n')) {
    if (line.trim() === '') continue;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      invalid += 1;
      continue;
    }
    // A stored line is an envelope around the event, or the bare event.
    const result = decodeEvent('event' in value ? value.event : value);
    if (result.isOk()) {
      decoded.push(result.value);
      // The envelope's receivedAt gives the views their times, as the engine does.
      times.push('event' in value ? value.receivedAt : undefined);
    } else invalid += 1;
  }
  const { state, conflicts } = fold(initialState(), decoded, times);
  return JSON.stringify({
    invalid,
    conflicts: conflicts.length,
    templates: [...listTemplates(state)],
    signRequests: [...listSignRequests(state)],
    participants: [...listParticipants(state)],
  });
};

/** The engine runs in the page too: the projector applies the stored records one by one. */
export const projectLog = (text) => {
  const projector = createProjector();
  let unreadable = 0;
  for (const line of text.split('\\n')) {
    if (line.trim() === '') continue;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      unreadable += 1;
      continue;
    }
    if (!('event' in value)) continue;
    const { position, event, receivedAt, deliveryId } = value;
    projector.apply({ position, event, receivedAt, deliveryId });
  }
  return JSON.stringify({
    signRequests: listSignRequests(projector.state()).length,
    quarantined: projector.quarantine().length + unreadable,
  });
};
`;

const EXAMPLE = 'node_modules/signfold/examples/events.ndjson';

interface Folded {
  readonly invalid: number;
  readonly conflicts: number;
  readonly templates: unknown[];
  readonly signRequests: unknown[];
  readonly participants: unknown[];
}

let app: string;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];

/** Bundles `entry` of the app for a browser; esbuild's errors if it cannot. */
const bundle = async (entry: string) => {
  const { build } = await import('esbuild');
  return build({
    absWorkingDir: app,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'consumer',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
};

/** The tests of the installed package's core in a browser. */
export const describeBrowserBundle = (packedApp: () => PackedApp): void => {
  describe('signfold/core and signfold in a browser', () => {
    beforeAll(async () => {
      app = packedApp().app;
      await writeFile(join(app, 'consumer.js'), CONSUMER);
      browser = await connectBrowser();
      page = await browser.newPage();
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('bundles for the browser from nothing but the package and its dependencies', async () => {
      const result = await bundle('consumer.js');
      expect(result.errors).toEqual([]);
      const inputs = Object.keys(result.metafile.inputs);
      const packages = new Set(
        inputs.map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input),
      );
      expect([...packages].sort()).toEqual(
        ['consumer.js', 'immer', 'neverthrow', 'signfold', 'ts-pattern'].sort(),
      );
      expect(inputs.filter((input) => input.includes('node:'))).toEqual([]);
    });

    it('runs in chromium and folds the example log into the state signfold replay --json shows', async () => {
      const code = (await bundle('consumer.js')).outputFiles[0]?.text ?? '';
      await page.setContent('<!doctype html><title>signfold/core</title>');
      await page.addScriptTag({ content: code });
      const log = await readFile(join(app, EXAMPLE), 'utf8');
      const folded = JSON.parse(
        await page.evaluate((text) => {
          const loaded = (globalThis as { consumer?: { foldLog(text: string): string } }).consumer;
          return loaded?.foldLog(text) ?? 'null';
        }, log),
      ) as Folded;
      const { stdout } = await exec(
        process.execPath,
        [join(app, 'node_modules/signfold/dist/cli/main.js'), 'replay', '--json', EXAMPLE],
        app,
      );
      const replay = JSON.parse(stdout) as Folded & {
        stats: { invalid: number; conflicts: number };
      };
      expect(folded.templates).toEqual(replay.templates);
      expect(folded.signRequests).toEqual(replay.signRequests);
      expect(folded.participants).toEqual(replay.participants);
      expect(folded.signRequests.length).toBe(400);
      expect([folded.invalid, folded.conflicts]).toEqual([
        replay.stats.invalid,
        replay.stats.conflicts,
      ]);
      const projected = JSON.parse(
        await page.evaluate((text) => {
          const loaded = (globalThis as { consumer?: { projectLog(text: string): string } })
            .consumer;
          return loaded?.projectLog(text) ?? 'null';
        }, log),
      ) as { signRequests: number; quarantined: number };
      expect(projected).toEqual({
        signRequests: 400,
        quarantined: replay.stats.invalid + replay.stats.conflicts,
      });
      expect(problems).toEqual([]);
    });

    it('is the line: signfold/file pulls in node:fs and does not bundle for a browser', async () => {
      await writeFile(
        join(app, 'file-entry.js'),
        "export { openFileEventLog } from 'signfold/file';\n",
      );
      await expect(bundle('file-entry.js')).rejects.toThrow(/node:/);
    });
  });
};
