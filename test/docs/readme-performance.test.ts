/**
 * The performance summary (docs/performance.md) quotes bench/RESULTS.md (the
 * README, where it stood before, had drifted to 275,147 events/s and 0.95 while RESULTS.md
 * said 330,113 and 1.249). Whenever `npm run bench` rewrites RESULTS.md, this
 * fails until the summary quotes the new figures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const RESULTS = readFileSync(join(ROOT, 'bench/RESULTS.md'), 'utf8');
const README = readFileSync(join(ROOT, 'docs/performance.md'), 'utf8');
const PERFORMANCE = README.slice(
  README.indexOf('## Summary'),
  README.indexOf('## Where the time goes'),
);
/** The section with line breaks read as spaces, for figures that a wrapped line may split. */
const PROSE = PERFORMANCE.replace(/\s+/g, ' ');

const number = (text: string): number => Number(text.replaceAll(',', ''));
const grouped = (n: number): string => Math.round(n).toLocaleString('en-US');

/** The cells of the RESULTS.md table row whose first cell starts with `label`. */
const row = (label: string): string[] => {
  const line = RESULTS.split('\n').find((l) => l.startsWith(`| ${label}`));
  expect(line, label).toBeDefined();
  return (line ?? '')
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
};

/** The README table row whose first cell starts with `label`, as cells. */
const readmeRow = (label: string): string[] => {
  const line = PERFORMANCE.split('\n').find((l) => l.startsWith(`| ${label}`));
  expect(line, label).toBeDefined();
  return (line ?? '')
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
};

describe('README performance figures', () => {
  it('quote the long stream of bench/RESULTS.md, and its ratios', () => {
    const baseline = number(row('1. baseline')[1] ?? '');
    const replay = number(row('2. signfold replay')[1] ?? '');
    const audit = number(row('2b. signfold replay with audit')[1] ?? '');
    const live = number(row('4. live apply')[1] ?? '');
    const naive = number(row('3. naive immer')[1] ?? '');
    expect(readmeRow('baseline')).toEqual([expect.any(String), grouped(baseline), '1.00']);
    expect(readmeRow('`signfold replay`').slice(1)).toEqual([
      grouped(replay),
      (replay / baseline).toFixed(2),
    ]);
    expect(readmeRow('the same with audit').slice(1)).toEqual([
      grouped(audit),
      (audit / baseline).toFixed(2),
    ]);
    expect(readmeRow('live `apply`')[1]).toBe(grouped(live));
    expect(readmeRow('naive reference')[1]).toBe(grouped(naive));
    const stream = /stream: ([\d,]+) events \(envelope NDJSON\), ([\d.]+) MB/.exec(RESULTS);
    expect(PERFORMANCE).toContain(`${stream?.[1]} events (${Math.round(Number(stream?.[2]))} MB`);
  });

  it('quote the interleaved streams, bare and envelope, as generated and with ASCII names', () => {
    // RESULTS.md keeps one row per stream and processor; the summary names the one it quotes.
    const processor = /measured on `([^`]+)`/.exec(PROSE)?.[1] ?? '';
    expect(processor).not.toBe('');
    for (const kind of ['bare', 'envelope', 'bare, ASCII names', 'envelope, ASCII names']) {
      const line = RESULTS.split('\n').find((l) => {
        const cells = l.split('|').map((cell) => cell.trim());
        return cells[1] === kind && cells[2] === processor;
      });
      expect(line, `${kind} on ${processor}`).toBeDefined();
      const [, , , , file = '', base = '', replay = '', ratio = ''] = (line ?? '')
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const first = (cell: string) => cell.split(' ')[0] ?? '';
      const quoted = PERFORMANCE.split('\n').find((l) => l.startsWith(`| ${kind} |`));
      expect(quoted, kind).toBeDefined();
      expect(
        (quoted ?? '')
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
        kind,
      ).toEqual([kind, file, `${first(base)} ms`, `${first(replay)} ms`, ratio]);
    }
    const events = /^([\d,]+) events of ([\d,]+) sign requests/m.exec(RESULTS);
    expect(PROSE).toContain(`${events?.[1]} events of ${events?.[2]} sign requests`);
  });

  it('quote the decoding cost and the fold at scale', () => {
    const decode = /Decode cost: (\d+) ns\/event vs JSON.parse (\d+) ns\/event/.exec(RESULTS);
    const measured = row('decode / JSON.parse')[1];
    expect(PROSE).toContain(
      `${measured} × its \`JSON.parse\` (${decode?.[1]} ns vs ${grouped(Number(decode?.[2]))} ns)`,
    );
    for (const requests of ['10,000', '1,000,000']) {
      const [, , perSecond = '', heap = '', bytes = ''] = row(requests);
      expect(PROSE).toContain(`${perSecond} events/s`);
      if (requests === '1,000,000') {
        expect(PROSE).toContain(`${heap} of heap`);
        expect(PROSE).toContain(`(${bytes} bytes per record)`);
      }
    }
  });
});
