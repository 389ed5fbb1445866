/**
 * A log for the report's layout under hostile names: templates, requests,
 * senders, owners and participants named by the strings of the hostile
 * corpus (markup, terminal escapes, bidi overrides, 20,000 characters…),
 * 500-character words, emoji and right-to-left text, in three companies,
 * with completed, declined and stuck requests; then the corpus's own lines,
 * which fill the quarantine with hostile messages.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { events } from '../../src/testing/index.js';
import { ROOT } from '../cli/cli-helpers.js';

const CORPUS = join(ROOT, 'test/fixtures/hostile/hostile.ndjson');
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);

/** Names beyond the corpus: the cases of the issue. */
export const EXTRA_NAMES: readonly string[] = [
  'W'.repeat(500),
  `${'x'.repeat(250)} ${'y'.repeat(250)}`,
  '😀'.repeat(80),
  '👩‍👩‍👧‍👦 Family contract 🇫🇷',
  'invoice\u202Efdp.exe',
  'שלום עולם (חוזה)',
  'عقد الإيجار 2025',
  '<img src=x onerror=alert(1)><script>alert(1)</script>',
  '=HYPERLINK("http://evil.example","click")',
  '"quoted, with commas"\r\nand a line break',
];

/** Every string member whose name ends in `Name` in the corpus lines that parse. */
export const corpusNames = (): string[] => {
  const found = new Set<string>();
  const visit = (value: unknown, key: string): void => {
    if (typeof value === 'string' && /name$/i.test(key) && value !== '') found.add(value);
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k);
    }
  };
  for (const line of readFileSync(CORPUS, 'utf8').split('\n')) {
    try {
      visit(JSON.parse(line), '');
    } catch {
      // Not JSON: the corpus's own lines still go into the log as they are.
    }
  }
  return [...found];
};

/** The log's lines: one template and three requests per name, then the corpus. */
export const hostileLogLines = (): string[] => {
  const names = [...EXTRA_NAMES, ...corpusNames()];
  const lines: string[] = [];
  const add = (at: number, event: object): void => {
    lines.push(
      JSON.stringify({
        position: lines.length + 1,
        receivedAt: new Date(T0 + at).toISOString(),
        deliveryId: `d-${lines.length + 1}`,
        event,
      }),
    );
  };
  names.forEach((name, index) => {
    const companyId = 1 + (index % 3);
    const templateId = 100 + index;
    const who = {
      companyId,
      templateId,
      templateName: name,
      ownerId: 10 + index,
      ownerName: name,
      senderId: 20 + index,
      senderName: name,
    };
    add(0, events.templateActivated({ ...who }));
    for (const [offset, outcome] of [
      [0, 'completed'],
      [1, 'declined'],
      [2, 'open'],
    ] as const) {
      const signRequestId = 10_000 + index * 3 + offset;
      const common = { ...who, signRequestId, signRequestName: name, participantName: name };
      const start = (index % 7) * DAY;
      add(start, events.signRequestSent(common));
      add(start + 60_000, events.participantSent({ ...common, participantId: 1 }));
      add(start + 120_000, events.participantViewed({ ...common, participantId: 1 }));
      if (outcome === 'completed') {
        add(start + DAY, events.participantSigned({ ...common, participantId: 1 }));
        add(start + DAY + 1000, events.signRequestCompleted(common));
      } else if (outcome === 'declined') {
        add(start + 2 * DAY, events.participantDeclined({ ...common, participantId: 1 }));
        add(start + 2 * DAY + 1000, events.signRequestDeclined(common));
      }
    }
  });
  // The latest receivedAt, 30 days on: every open request is stuck.
  add(30 * DAY, events.templateActivated({ companyId: 1, templateId: 99, templateName: 'Late' }));
  // The corpus's envelopes count their positions from 1: moved after ours, so that they are
  // judged for what they hold, not for their order.
  const base = lines.length;
  const corpus = readFileSync(CORPUS, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) =>
      line.replace(/^\{"position":(\d+),/, (_, n: string) => `{"position":${base + Number(n)},`),
    );
  return [...lines, ...corpus];
};
