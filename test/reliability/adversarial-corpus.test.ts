/**
 * Runs the committed corpus of adversarial samples in
 * `test/fixtures/adversarial/`: each file has an expected outcome in
 * `manifest.json` (`ok`, or the error kind and path, and for logs the line).
 * Event and sign-request files are decoded from their bytes as a webhook
 * receiver would (UTF-8, then `decodeEventJson` / `JSON.parse` +
 * `decodeSignRequest`); log files are replayed by a projector over
 * `readFileEventLog`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeEventJson } from '../../src/core/events/decode-event.js';
import {
  EVENT_MEMBERS,
  MEMBER_KINDS,
  WIRE_PARTICIPANT_NAME,
} from '../../src/core/events/event-members.js';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';
import { createProjector } from '../../src/engine/projector.js';
import type { QuarantineEntry } from '../../src/engine/quarantine.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { assertNotPolluted, Figures } from './fixtures/reliability-helpers.js';

const CORPUS = fileURLToPath(new URL('../fixtures/adversarial/', import.meta.url));

interface Failure {
  readonly kind: string;
  readonly path: string;
  /** Log files: the line of the first quarantined record. */
  readonly line?: number;
  /** A substring of the message. */
  readonly message?: string;
}

interface Sample {
  readonly file: string;
  readonly target: 'event' | 'sign-request' | 'log';
  readonly note: string;
  readonly options?: { readonly maxLineBytes?: number };
  readonly expect: 'ok' | Failure;
}

const manifest = JSON.parse(await readFile(join(CORPUS, 'manifest.json'), 'utf8')) as Sample[];

const figures = new Figures('adversarial corpus');
afterAll(() => figures.print());

/** What a quarantine entry reports, in the manifest's terms. */
const failureOf = (entry: QuarantineEntry): Required<Omit<Failure, 'line'>> & { line?: number } => {
  const { reason } = entry;
  const common = {
    message: reason.message,
    ...(entry.line === undefined ? {} : { line: entry.line }),
  };
  switch (reason.kind) {
    case 'bad-line':
      return { kind: 'bad-line', path: '', ...common };
    case 'invalid-event':
      return { kind: reason.error.kind, path: reason.error.path, ...common };
    case 'conflict':
      return { kind: reason.conflict.kind, path: '', ...common };
  }
};

const expectFailure = (actual: Failure, expected: Failure): void => {
  expect({ kind: actual.kind, path: actual.path }).toEqual({
    kind: expected.kind,
    path: expected.path,
  });
  if (expected.line !== undefined) expect(actual.line).toBe(expected.line);
  if (expected.message !== undefined) expect(actual.message).toContain(expected.message);
};

const runEvent = (bytes: Buffer, sample: Sample): void => {
  const text = bytes.toString('utf8');
  const result = decodeEventJson(text);
  if (sample.expect === 'ok') {
    const event = result._unsafeUnwrap() as unknown as Record<string, unknown>;
    // Accepted exactly as given: each member of the type equals the parsed text's.
    const parsed = JSON.parse(text) as Record<string, unknown>;
    for (const name of EVENT_MEMBERS[event.type as keyof typeof EVENT_MEMBERS]) {
      const given =
        name === 'participantName' ? (parsed[WIRE_PARTICIPANT_NAME] ?? parsed[name]) : parsed[name];
      if (MEMBER_KINDS[name] === 'id') expect(event[name] === given).toBe(true);
      else expect(event[name]).toBe(given);
    }
    expect(Object.keys(event)).toHaveLength(
      1 + EVENT_MEMBERS[event.type as 'template-activated'].length,
    );
  } else {
    expect(result.isErr()).toBe(true);
    expectFailure(result._unsafeUnwrapErr(), sample.expect);
  }
};

const runSignRequest = (bytes: Buffer, sample: Sample): void => {
  const result = decodeSignRequest(JSON.parse(bytes.toString('utf8')));
  if (sample.expect === 'ok') {
    expect(result.isOk(), JSON.stringify(result.isErr() ? result.error : '')).toBe(true);
  } else {
    const errors = result._unsafeUnwrapErr();
    expectFailure(errors[0] as Failure, sample.expect);
  }
};

const runLog = async (path: string, sample: Sample): Promise<void> => {
  const projector = createProjector();
  const replayed = await projector.replay({
    read: (o) => readFileEventLog(path, { ...sample.options, ...o }),
  });
  expect(replayed.isOk()).toBe(true);
  const quarantine = projector.quarantine();
  if (sample.expect === 'ok') {
    expect(quarantine).toEqual([]);
    expect(projector.stats().applied).toBeGreaterThan(0);
  } else if (sample.expect.kind === 'incomplete-tail') {
    // An unterminated last line is not data yet: reported apart, never quarantined.
    expect(quarantine).toEqual([]);
    const tail = projector.incompleteTail();
    expect(tail?.line).toBe(sample.expect.line);
    expect(projector.checkpoint).toBeLessThan(tail?.position ?? 0);
  } else {
    expect(quarantine.length).toBeGreaterThan(0);
    expectFailure(failureOf(quarantine[0] as QuarantineEntry), sample.expect);
  }
};

describe('adversarial corpus (test/fixtures/adversarial)', () => {
  it('lists every file of the corpus exactly once', async () => {
    const files = (await readdir(CORPUS)).filter((name) => name !== 'manifest.json').sort();
    expect(manifest.map((s) => s.file).sort()).toEqual(files);
  });

  it.each(manifest.map((sample) => [sample.file, sample] as const))('%s', async (_file, sample) => {
    const path = join(CORPUS, sample.file);
    const bytes = await readFile(path);
    if (sample.target === 'event') runEvent(bytes, sample);
    else if (sample.target === 'sign-request') runSignRequest(bytes, sample);
    else await runLog(path, sample);
    assertNotPolluted();
    figures.add('samples run');
    figures.add(`samples expecting ${sample.expect === 'ok' ? 'ok' : 'an error'}`);
    figures.add('bytes', bytes.length);
  });
});
