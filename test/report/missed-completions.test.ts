/**
 * The requests fully signed without a completion (issue 46: the page said
 * "N fully signed without a completion", named none and pointed to a library
 * function): the page lists their ids, the first few shown and the rest
 * folded in a `<details>`, and gives the `signfold reconcile` command line
 * (docs/cli.md#reconcile) for them, with nothing from the log unescaped.
 */
import { describe, expect, it } from 'vitest';
import { LISTED_ROWS } from '../../src/report/model/report-model.js';
import { SHOWN_IDS } from '../../src/report/render/render-lists.js';
import { renderReport } from '../../src/report/render-report.js';
import { events } from '../../src/testing/index.js';
import { DAY, type Delivery, HOUR, modelOf } from './report-fixtures.js';

/** `count` requests of `companyId` from id `first`, each with one participant who signed; no completion. */
const signedWithoutCompletion = (count: number, first = 1000, companyId = 1): Delivery[] =>
  Array.from({ length: count }, (_, n) => {
    const common = { companyId, templateId: 10, signRequestId: first + n };
    const who = { ...common, participantId: 1 };
    return [
      { event: events.signRequestSent(common), at: HOUR },
      { event: events.participantSent(who), at: HOUR + 1000 },
      { event: events.participantSigned(who), at: 2 * HOUR },
    ];
  }).flat();

/** A request completed as it should be: never listed. */
const completed: Delivery[] = [
  { event: events.signRequestSent({ companyId: 1, templateId: 10, signRequestId: 1 }), at: HOUR },
  {
    event: events.participantSigned({
      companyId: 1,
      templateId: 10,
      signRequestId: 1,
      participantId: 1,
    }),
    at: HOUR,
  },
  {
    event: events.signRequestCompleted({ companyId: 1, templateId: 10, signRequestId: 1 }),
    at: 2 * HOUR,
  },
];

/** The block of the scope `anchor` (`missed-completions`, `missed-completions-2`). */
const block = (html: string, anchor = 'missed-completions'): string => {
  const found = new RegExp(`<div class="missed" id="${anchor}"[^>]*>(.*?)</div>`, 's').exec(html);
  if (found === null) throw new Error(`no block #${anchor}`);
  return found[1] ?? '';
};

/** The ids of the block's lists: those shown, then those folded. */
const ids = (part: string): number[] =>
  [...part.matchAll(/<p class="ids">([^<]*)<\/p>/g)].flatMap(([, text = '']) =>
    [...text.matchAll(/\d+/g)].map(([n]) => Number(n)),
  );

const commandOf = (part: string): string =>
  (/<p class="command"><code>([^<]*)<\/code><\/p>/.exec(part)?.[1] ?? '')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');

describe('requests fully signed without a completion', () => {
  it('are named with the reconcile command, unfolded when few', async () => {
    const html = renderReport(await modelOf([...completed, ...signedWithoutCompletion(3)]));
    const part = block(html);
    expect(part).toContain(
      '<strong class="flag">3 open requests have every participant signed but no <code>sign-request-completed</code></strong>',
    );
    expect(ids(part)).toEqual([1000, 1001, 1002]);
    expect(part).not.toContain('<details');
    expect(commandOf(part)).toBe(
      'signfold reconcile events.ndjson --fetch MODULE --sign-request 1000 --sign-request 1001 --sign-request 1002',
    );
    expect(html).toContain(
      '<a href="#missed-completions">3 fully signed without a completion</a> (1000, 1001, 1002): <code>signfold reconcile</code>',
    );
    expect(html).not.toContain('compareSignRequest');
  });

  it('show the first ids and fold the others and the command when many', async () => {
    const html = renderReport(await modelOf(signedWithoutCompletion(25)));
    const part = block(html);
    const all = Array.from({ length: 25 }, (_, n) => 1000 + n);
    expect(ids(part)).toEqual(all);
    // The ids shown before the fold, then the folded ones, then the folded command.
    const [shown, folded] = part.split('<details class="fold" data-fold="ids">');
    expect(ids(shown ?? '')).toEqual(all.slice(0, SHOWN_IDS));
    expect(folded).toMatch(/^<summary>15 more requests<\/summary>/);
    expect(part).toMatch(
      /<details class="fold" data-fold="command"><summary>The command for these 25 requests<\/summary><p class="command"><code>/,
    );
    expect(commandOf(part).match(/--sign-request \d+/g)).toHaveLength(25);
    expect(html).toContain('25 fully signed without a completion</a> (1000, 1001, 1002, …)');
  });

  it(`list at most ${LISTED_ROWS} ids and say how many more there are`, async () => {
    const html = renderReport(await modelOf(signedWithoutCompletion(LISTED_ROWS + 5)));
    const part = block(html);
    expect(ids(part)).toHaveLength(LISTED_ROWS);
    expect(part).toContain('The first 1,000 by id are listed');
    expect(part).toContain('for the other 5.');
    expect(commandOf(part).match(/--sign-request \d+/g)).toHaveLength(LISTED_ROWS);
  });

  it('are listed per company, behind the company filter', async () => {
    const html = renderReport(
      await modelOf([
        ...signedWithoutCompletion(2, 1000, 1),
        ...signedWithoutCompletion(1, 2000, 2),
      ]),
    );
    expect(ids(block(html))).toEqual([1000, 1001, 2000]);
    expect(ids(block(html, 'missed-completions-1'))).toEqual([1000, 1001]);
    expect(ids(block(html, 'missed-completions-2'))).toEqual([2000]);
    expect(html).toContain('<div class="missed" id="missed-completions-2" data-scope="2" hidden>');
    expect(html).toContain(
      '<a href="#missed-completions-2">1 fully signed without a completion</a>',
    );
    expect(commandOf(block(html, 'missed-completions-2'))).toMatch(/--sign-request 2000$/);
  });

  it('are listed when no event has a receivedAt', async () => {
    const html = renderReport(await modelOf(signedWithoutCompletion(2), { bare: true }));
    expect(ids(block(html))).toEqual([1000, 1001]);
  });

  it('carry the log name into the command escaped and shell-quoted, never as markup or control characters', async () => {
    const log = `<b onclick="x">it's</b>\u001b[31m.ndjson`;
    const html = renderReport(await modelOf(signedWithoutCompletion(1), { log }));
    const part = block(html);
    expect(part).not.toContain('<b');
    expect(part).not.toContain('\u001b');
    expect(html).not.toContain('\u001b');
    expect(commandOf(part)).toBe(
      `signfold reconcile '<b onclick="x">it'\\''s</b>\\u001b[31m.ndjson' --fetch MODULE --sign-request 1000`,
    );
  });

  it('are not mentioned when there are none', async () => {
    const html = renderReport(await modelOf([...completed, ...signedWithoutCompletion(0)]));
    expect(html).not.toContain('class="missed"');
    expect(html).not.toContain('fully signed without a completion');
    expect(html).not.toContain('signfold reconcile');
  });

  it('are named whatever their age (a completion may still be on its way, or lost)', async () => {
    const html = renderReport(
      await modelOf(signedWithoutCompletion(1), { now: 3 * HOUR, stuckAfterMs: 7 * DAY }),
    );
    expect(ids(block(html))).toEqual([1000]);
  });
});
