/**
 * Every string the report prints agrees with its count (issue 34: the page
 * said "1 bad lines" and "0 conflicts apart"). Pages of logs built so that
 * each count is 0, 1 and many are read whole (text and the attributes people
 * read, see page-strings.ts), and no string may pair 1 with a plural noun,
 * another number with a singular one, or set a count "apart".
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/testing/index.js';
import { removeTempDirs, runCliHere, tempDir } from '../cli/cli-helpers.js';
import { craftedLogLines, START } from './crafted-log.js';
import { pageStrings } from './page-strings.js';
import { stuckLogLines } from './stuck-log.js';

const DAY = 86_400_000;
/** The nouns the page counts, singular and plural. */
const NOUNS: readonly (readonly [string, string])[] = [
  ['record', 'records'],
  ['request', 'requests'],
  ['line', 'lines'],
  ['event', 'events'],
  ['conflict', 'conflicts'],
  ['row', 'rows'],
  ['participant', 'participants'],
  ['company', 'companies'],
  ['template', 'templates'],
  ['problem', 'problems'],
  ['repair', 'repairs'],
];
/**
 * A count as the page writes it (`1`, `12,345`), not a part of a time or a
 * decimal, nor an id (`company 2`, `sign-request 90002`, `position 3`).
 */
const COUNT = String.raw`(?<![\w.,:\-–#])(?<!(?:company|request|template|position|line|user) )(\d{1,3}(?:,\d{3})+|\d+)(?![\w.,:\-–])`;
/** Up to two words between the count and its noun: `1 bad line`, `3 open requests`. */
const WORDS = '(?: [a-z][a-z-]*){0,2}';

/** The strings of `strings` whose counts disagree with their nouns, each with what is wrong. */
const disagreements = (strings: readonly string[]): string[] => {
  const found: string[] = [];
  for (const text of strings) {
    for (const [singular, plural] of NOUNS) {
      const pair = new RegExp(`${COUNT}${WORDS} (${singular}|${plural})(?![\\w-])`, 'g');
      for (const match of text.matchAll(pair)) {
        const n = Number((match[1] ?? '').replaceAll(',', ''));
        const noun = match[2];
        if ((n === 1) !== (noun === singular)) found.push(`"${match[0]}" in: ${text}`);
      }
    }
    if (/\bapart\b/.test(text) && new RegExp(`${COUNT}[^.;]*\\bapart\\b`).test(text)) {
      found.push(`a count "apart" in: ${text}`);
    }
  }
  return found;
};

let dir = '';
const pages = new Map<string, string[]>();

/** The strings of the page of `lines`, made with `--now` (so ages and stuck requests are fixed). */
const stringsOf = async (
  name: string,
  lines: readonly string[],
  now: number,
): Promise<string[]> => {
  const log = join(dir, `${name}.ndjson`);
  await writeFile(log, `${lines.join('\n')}\n`);
  const out = join(dir, `${name}.html`);
  const run = await runCliHere(['report', log, '--out', out, '--now', new Date(now).toISOString()]);
  expect(run.code, run.stderr).toBe(0);
  return pageStrings(await readFile(out, 'utf8'));
};

/** Envelope lines of `events`, one a minute from {@link START}. */
const enveloped = (list: readonly (object | string)[]): string[] =>
  list.map((event, index) =>
    typeof event === 'string'
      ? event
      : JSON.stringify({
          position: index + 1,
          receivedAt: new Date(START + index * 60_000).toISOString(),
          deliveryId: `dlv-${index + 1}`,
          event,
        }),
  );

const template = { companyId: 1, templateId: 700, templateName: 'NDA' };
const request = (signRequestId: number) => ({ ...template, signRequestId });
const participant = (signRequestId: number) => ({ ...request(signRequestId), participantId: 5 });

beforeAll(async () => {
  dir = await tempDir();
  const later = START + 30 * DAY;
  // Nothing counted: no request, no problem, one record.
  pages.set(
    'zeros',
    await stringsOf('zeros', enveloped([events.templateActivated(template)]), later),
  );
  // One of each: one open request (stuck, every participant signed), one completed, one bad
  // line, one invalid event, one conflict (a decline after the completion).
  pages.set(
    'ones',
    await stringsOf(
      'ones',
      enveloped([
        events.templateActivated(template),
        events.signRequestSent(request(1)),
        events.participantSent(participant(1)),
        events.participantSigned(participant(1)),
        events.signRequestSent(request(2)),
        events.participantSent(participant(2)),
        events.participantSigned(participant(2)),
        events.signRequestCompleted(request(2)),
        events.signRequestDeclined(request(2)),
        { ...request(3), type: 'sign-request-expired' },
        '{"position":11,"broken',
      ]),
      later,
    ),
  );
  // One record set aside, none stuck of two open requests.
  pages.set(
    'one-problem',
    await stringsOf(
      'one-problem',
      enveloped([
        events.signRequestSent(request(1)),
        events.signRequestSent(request(2)),
        '{"position":3,"broken',
      ]),
      START + DAY,
    ),
  );
  // Many of everything, over two companies, and 66 stuck requests.
  pages.set('many', await stringsOf('many', craftedLogLines(), START + 70 * DAY));
  pages.set('stuck', await stringsOf('stuck', stuckLogLines(), START + 400 * DAY));
});
afterAll(removeTempDirs);

describe('the wording of the report', () => {
  it('reads a page whole: counts of 0, 1 and many are all there', () => {
    const ones = pages.get('ones') ?? [];
    expect(ones).toContain(
      "1 bad line, 1 invalid event. Not counted here: 1 conflict (all companies). 0 requests repaired from the service's API.",
    );
    expect(ones.some((s) => s.startsWith('1 of 1 open request was sent more than'))).toBe(true);
    expect(ones.some((s) => s.includes('1 open request has every participant signed'))).toBe(true);
    expect(ones).toContain('CSV (1 row)');
    const zeros = pages.get('zeros') ?? [];
    expect(zeros.some((s) => s.endsWith(': 1 record.'))).toBe(true);
    expect(zeros).toContain(
      "0 bad lines, 0 invalid events. Not counted here: 0 conflicts (all companies). 0 requests repaired from the service's API.",
    );
    expect(pages.get('one-problem')).toContain(
      '1 record set aside: bad lines, invalid events and conflicts (state untouched by them). Messages that differ only in their numbers (ids, positions) form one group, shown with # for the numbers.',
    );
    expect(
      (pages.get('one-problem') ?? []).some((s) => s.startsWith('0 of 2 open requests were sent')),
    ).toBe(true);
    // Attributes are read too: the phone layout's labels and the hover titles.
    expect(pages.get('many')).toContain('request · template');
  });

  it('pairs 1 with a singular noun and every other count with a plural, and sets no count apart', () => {
    for (const [name, strings] of pages) expect(disagreements(strings), name).toEqual([]);
  });

  it('finds what it looks for: the old wording fails it', () => {
    expect(disagreements(['3 bad lines, 1 bad lines; 0 conflicts apart'])).toEqual([
      '"1 bad lines" in: 3 bad lines, 1 bad lines; 0 conflicts apart',
      'a count "apart" in: 3 bad lines, 1 bad lines; 0 conflicts apart',
    ]);
    expect(disagreements(['0 of 1 open requests were', '2 record', 'CSV (1 rows)'])).toHaveLength(
      3,
    );
    // Times, ids and decimals are not counts.
    expect(
      disagreements(['2025-05-01 08:00 request', 'sign-request 90002 (declined)', '7.0 d']),
    ).toEqual([]);
  });
});
