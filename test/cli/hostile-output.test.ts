/**
 * Issue 21 #6: whatever the data holds (ESC sequences, C1 controls, DEL, bidi
 * overrides and isolates, NUL, CR/LF in names, bad lines quoted by V8's JSON
 * error), no command prints one of those code points to stdout or stderr.
 * Every command runs as the real CLI on the shared hostile corpus and on a log
 * made for it; a property test runs the log commands on random hostile names
 * and bad lines.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import { forbiddenIn, hostileTextArb } from '../support/terminal-safety.js';
import { removeTempDirs, runCli, runCliHere, tempDir } from './cli-helpers.js';

afterAll(removeTempDirs);

const HOSTILE = HOSTILE_CORPUS;

const ESC = '\u001b[2J\u001b]0;pwned\u0007';
const C1 = '\u009b31m\u0085';
const BIDI = '\u202efdp.exe\u2066x\u2069';

/** Names made of every kind of forbidden code point, for each member the CLI prints. */
const NAMES = {
  template: `T ${ESC}${BIDI}\u007f`,
  request: `R ${C1}\r\nforged line`,
  sender: `S ${ESC}`,
  owner: `O ${C1}`,
  participant: `P ${BIDI}\u0000${ESC}`,
  role: `Role ${C1}\u007f`,
};

const base = { companyId: 1, ownerId: 10, ownerName: NAMES.owner };
const request = {
  signRequestId: 9,
  signRequestName: NAMES.request,
  senderId: 20,
  senderName: NAMES.sender,
};
const template = { templateId: 7, templateName: NAMES.template };
const participant = {
  participantId: 3,
  partcipantName: NAMES.participant,
  roleId: 1,
  roleName: NAMES.role,
};

/** A log whose names, bad lines and invalid values all carry forbidden code points. */
const NAMES_LOG = [
  JSON.stringify({ type: 'template-activated', ...base, ...template }),
  JSON.stringify({ type: 'sign-request-sent', ...base, ...request, ...template }),
  JSON.stringify({ type: 'participant-sent', ...base, ...request, ...template, ...participant }),
  JSON.stringify({ type: `participant-viewed${ESC}`, ...base }),
  JSON.stringify({
    type: 'participant-viewed',
    ...base,
    ...request,
    ...participant,
    signRequestId: `9${C1}`,
  }),
  `{"a":${ESC}${C1}${BIDI}\u007f}`,
  `{"type":"participant-signed", ${BIDI}`,
  // A conflict: signed twice is fine, but declined after signed is not.
  JSON.stringify({ type: 'participant-signed', ...base, ...request, ...template, ...participant }),
  JSON.stringify({
    type: 'participant-declined',
    ...base,
    ...request,
    ...template,
    ...participant,
  }),
];

/** A sign-request representation (spec §2) with hostile names, and one with hostile invalid values. */
const representation = (overrides: object) =>
  JSON.stringify({
    id: 9,
    name: NAMES.request,
    status: 'Completed',
    formType: 'Document',
    savedTime: '2026-03-01 10:00:00',
    participants: [],
    ...overrides,
  });

let dir: string;
let namesLog: string;
/** A log whose path itself holds forbidden code points. */
let hostilePath: string;

beforeAll(async () => {
  dir = await tempDir();
  namesLog = join(dir, 'names.ndjson');
  await writeFile(namesLog, `${NAMES_LOG.join('\n')}\n`);
  const sub = join(dir, `dir${ESC}${BIDI}`);
  await mkdir(sub);
  hostilePath = join(sub, `log${C1}.ndjson`);
  await writeFile(hostilePath, `${NAMES_LOG.join('\n')}\n`);
  await writeFile(join(dir, 'valid.json'), representation({}));
  await writeFile(
    join(dir, 'invalid.json'),
    representation({ status: `Done${ESC}`, formType: C1 }),
  );
  await writeFile(join(dir, 'not-json.json'), `{"name": ${ESC}${BIDI}}`);
});

/** Runs the CLI and returns what it printed, after checking that nothing forbidden is in it. */
const expectClean = async (args: readonly string[]) => {
  const result = await runCli(args);
  expect(forbiddenIn(result.stdout), result.stdout).toEqual([]);
  expect(forbiddenIn(result.stderr), result.stderr).toEqual([]);
  return result;
};

const logCommands = (log: string): [string, string[], number][] => [
  ['replay', ['replay', log], 0],
  ['replay --json', ['replay', log, '--json'], 0],
  ['replay --policy halt', ['replay', log, '--policy', 'halt'], 1],
  ['check', ['check', log], 1],
  ['inspect', ['inspect', log, '--sign-request', log === HOSTILE ? '5001' : '9'], 0],
  ['inspect of an unknown id', ['inspect', log, '--sign-request', '404'], 1],
  ['report', ['report', log, '--out', join(dir, 'report.html')], 0],
  ['validate (a log is not a representation)', ['validate', log], 1],
];

describe('no control or bidi character from data on stdout or stderr', () => {
  describe.each([
    ['the hostile corpus', () => HOSTILE],
    ['a log of hostile names and bad lines', () => namesLog],
    ['a log whose path holds them', () => hostilePath],
  ])('%s', (_, logOf) => {
    it('every log command', async () => {
      const log = logOf();
      for (const [name, args, code] of logCommands(log)) {
        const result = await expectClean(args);
        expect(result.code, `${name}: ${result.stderr}`).toBe(code);
      }
    });
  });

  it('replay --json escapes them, and parses back to the very names', async () => {
    const { stdout } = await expectClean(['replay', namesLog, '--json']);
    const report = JSON.parse(stdout) as {
      templates: { name: string }[];
      signRequests: { name: string; senderName: string; ownerName: string }[];
      participants: { name: string; roleName: string }[];
    };
    expect(report.templates.map((t) => t.name)).toEqual([NAMES.template]);
    expect(report.signRequests[0]).toMatchObject({
      senderName: NAMES.sender,
      ownerName: NAMES.owner,
    });
    expect(report.participants[0]).toMatchObject({ name: NAMES.participant, roleName: NAMES.role });
  });

  it('inspect shows each name escaped, on its own line', async () => {
    const { stdout } = await expectClean(['inspect', namesLog, '--sign-request', '9']);
    expect(stdout).toContain(
      'P \\u202efdp.exe\\u2066x\\u2069\\u0000\\u001b[2J\\u001b]0;pwned\\u0007',
    );
    expect(stdout).toContain('owner     10 O \\u009b31m\\u0085');
    // The CR LF in the request's name does not start a line of its own.
    expect(stdout).toContain('Sign request 9: R \\u009b31m\\u0085\\u000d\\u000aforged line\n');
    expect(stdout.split('\n').filter((line) => line.startsWith('forged line'))).toEqual([]);
  });

  it('check quotes a bad line with its ESC, C1 and bidi characters escaped', async () => {
    const { stdout } = await expectClean(['check', namesLog]);
    // V8's message quotes the start of the line (ESC included) and the offending token.
    expect(stdout).toContain(
      `:6: position 6: bad line: invalid JSON: Unexpected token '\\u001b', "{"a":\\u001b[2J`,
    );
  });

  it.each([
    ['valid', 0],
    ['invalid', 1],
    ['not-json', 1],
  ])('validate of a %s representation', async (name, code) => {
    const result = await expectClean(['validate', join(dir, `${name}.json`)]);
    expect(result.code).toBe(code);
  });

  it.each([
    ['a missing log', ['replay', `no-such${ESC}${BIDI}.ndjson`]],
    ['an unknown command', [`frob${ESC}`]],
    ['an unknown option', ['replay', 'x', `--x${C1}`]],
    ['a bad flag value', ['replay', 'x', '--until', `1${BIDI}`]],
    ['a missing snapshot', ['replay', HOSTILE, '--from-snapshot', `s${ESC}`]],
    ['a bad id', ['inspect', 'x', '--sign-request', `1${ESC}`]],
    ['a bad database URL', ['pg', 'status', '--database', `postgres://h${ESC}:x${BIDI}/d`]],
  ])('the error line of %s', async (_, args) => {
    const result = await expectClean(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^signfold: [^\n]*\n$/);
  });
});

describe('property: random hostile names and bad lines', () => {
  const hostileLogArb = fc.record({
    names: fc.record({
      template: hostileTextArb,
      request: hostileTextArb,
      participant: hostileTextArb,
      role: hostileTextArb,
      sender: hostileTextArb,
    }),
    badLines: fc.array(hostileTextArb, { maxLength: 3 }),
    badType: hostileTextArb,
  });

  it('replay, replay --json, check and inspect print none of them', async () => {
    const work = await tempDir();
    let round = 0;
    await fc.assert(
      fc.asyncProperty(hostileLogArb, async ({ names, badLines, badType }) => {
        const who = {
          companyId: 1,
          ownerId: 10,
          ownerName: 'O',
          senderId: 20,
          senderName: names.sender,
        };
        const req = { signRequestId: 9, signRequestName: names.request };
        const tpl = { templateId: 7, templateName: names.template };
        const part = {
          participantId: 3,
          partcipantName: names.participant,
          roleId: 1,
          roleName: names.role,
        };
        const lines = [
          JSON.stringify({ type: 'template-activated', ...who, ...tpl }),
          JSON.stringify({ type: 'sign-request-sent', ...who, ...req, ...tpl }),
          JSON.stringify({ type: 'participant-sent', ...who, ...req, ...tpl, ...part }),
          JSON.stringify({ type: badType, ...who, ...req }),
          // A bad line is cut at a newline, like the log reader does; blank ones are not records.
          ...badLines.map((line) => `{${line.replace(/[\r\n]/g, ' ')}`),
        ];
        round += 1;
        const log = join(work, `log-${round}.ndjson`);
        await writeFile(log, `${lines.join('\n')}\n`);
        for (const argv of [
          ['replay', log],
          ['replay', log, '--json'],
          ['check', log],
          ['inspect', log, '--sign-request', '9'],
        ]) {
          const result = await runCliHere(argv);
          expect(result.code).toBeLessThan(2);
          expect(forbiddenIn(result.stdout)).toEqual([]);
          expect(forbiddenIn(result.stderr)).toEqual([]);
        }
      }),
      { numRuns: count(25, 400) },
    );
  });
});
