/**
 * docs/service-interface.md is the project's own account of the service's
 * interface (issue 19): the docs point there instead of at a spec the
 * repository does not hold, its links resolve, and its tables say what the
 * code does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_MEMBERS, EVENT_TYPES } from '../../src/core/events/event-members.js';
import { FORM_TYPES, SIGN_REQUEST_STATUSES } from '../../src/core/sign-request/sign-request.js';

const ROOT = join(import.meta.dirname, '../..');
const DOCS = join(ROOT, 'docs');
const PAGE = readFileSync(join(DOCS, 'service-interface.md'), 'utf8');
const documents = [
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => ({ name: `docs/${name}`, text: readFileSync(join(DOCS, name), 'utf8') })),
  { name: 'README.md', text: readFileSync(join(ROOT, 'README.md'), 'utf8') },
];

/** GitHub's anchor of a heading. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

const anchors = new Set([...PAGE.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] ?? '')));

/** The body of the section under `heading`, up to the next heading. */
const section = (heading: string): string => {
  const start = PAGE.indexOf(`${heading}\n`);
  const rest = PAGE.slice(start + heading.length + 1);
  return rest.slice(0, rest.search(/^#{1,6} /m));
};

describe('docs/service-interface.md', () => {
  it('is what the docs refer to: none of them cites "the spec" any more', () => {
    const cites = documents.flatMap(({ name, text }) =>
      text
        .split('\n')
        .filter((line) => /\bspec\b(?!-)|\bspec's\b/i.test(line.replace(/ndjson-spec/g, '')))
        .map((line) => `${name}: ${line}`),
    );
    expect(cites).toEqual([]);
    // Doc comments (shown in the API reference) and the JSON Schemas' descriptions too.
    const sources = [
      ...readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.ts'))
        .map((name) => join(ROOT, 'src', name)),
      ...readdirSync(join(DOCS, 'schema')).map((name) => join(DOCS, 'schema', name)),
    ];
    const cited = sources.filter((file) =>
      /spec §|\bthe spec\b|\bspec's\b|spec table/.test(readFileSync(file, 'utf8')),
    );
    expect(cited).toEqual([]);
    const pointing = documents.filter(({ text }) => text.includes('service-interface.md'));
    expect(pointing.length).toBeGreaterThanOrEqual(8);
  });

  it('has every anchor the docs link to', () => {
    const links = documents.flatMap(({ name, text }) =>
      [...text.matchAll(/service-interface\.md#([\w-]+)/g)].map((m) => ({ name, anchor: m[1] })),
    );
    expect(links.length).toBeGreaterThan(10);
    for (const { name, anchor } of links) expect(anchors, `${name} → #${anchor}`).toContain(anchor);
  });

  it('lists the members of every event type as the decoder has them', () => {
    const groups = [
      ['templateId', 'templateName'],
      ['signRequestId', 'signRequestName', 'senderId', 'senderName'],
      ['participantId', 'participantName', 'roleId', 'roleName'],
    ];
    const rows = section('### Members by event type')
      .split('\n')
      .filter((line) => /^\| `[a-z]+-[a-z-]+` /.test(line));
    expect(rows.map((row) => /`([a-z-]+)`/.exec(row)?.[1])).toEqual([...EVENT_TYPES]);
    for (const row of rows) {
      const type = /`([a-z-]+)`/.exec(row)?.[1] as (typeof EVENT_TYPES)[number];
      const marks = row
        .split('|')
        .slice(2, -1)
        .map((cell) => cell.trim() === '✓');
      const members: string[] = [...EVENT_MEMBERS[type]];
      expect(marks, type).toEqual(groups.map((group) => group.every((m) => members.includes(m))));
      for (const [i, group] of groups.entries()) {
        if (!marks[i])
          expect(
            members.filter((m) => group.includes(m)),
            type,
          ).toEqual([]);
      }
    }
  });

  it('names the statuses and form types the decoder accepts', () => {
    const statuses = section('## Statuses');
    for (const status of SIGN_REQUEST_STATUSES) expect(statuses).toContain(`\`${status}\``);
    const signRequest = section('### Sign request');
    for (const formType of FORM_TYPES) expect(signRequest).toContain(`\`${formType}\``);
  });
});
