/**
 * `signfold read-link` as a process, against `signfold serve` as a process
 * on the hostile corpus: the one URL it prints, opened with no header,
 * reaches the report through the cookie it is traded for; a changed link,
 * or one made with another token (a token changed to revoke links), is 401.
 * Its usage errors name the flag or the variable, never the token.
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { type CliRun, ROOT, removeTempDirs, runBinary, tempDir } from '../cli-helpers.js';
import { type ServeProcess, secretEnv, startServe } from '../serve/serve-process.js';

const TOKEN = 'read-link-token-0123456789abcdef';

let serve: ServeProcess;

beforeAll(async () => {
  const log = join(await tempDir(), 'hostile.ndjson');
  await copyFile(HOSTILE_CORPUS, log);
  serve = await startServe(
    ['--log', log, '--read-token-env', 'READ_TOKEN:1'],
    secretEnv({ READ_TOKEN: TOKEN }),
  );
});

afterAll(async () => {
  await serve?.stop();
  await removeTempDirs();
});

const readLink = (args: readonly string[], token: string | null = TOKEN): Promise<CliRun> => {
  // spawn writes an undefined variable as the text 'undefined': leave it out instead.
  const { READ_TOKEN: _, ...env } = process.env;
  return runBinary(
    ['read-link', ...args],
    ROOT,
    token === null ? env : { ...env, READ_TOKEN: token },
  );
};

/** The link's landing (no header but what a browser would send), then the page it leads to. */
const open = async (link: string): Promise<{ landing: Response; page?: Response }> => {
  const landing = await fetch(link, { redirect: 'manual' });
  if (landing.status !== 303) return { landing };
  const cookie = landing.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const page = await fetch(new URL(landing.headers.get('location') ?? '', link), {
    headers: { cookie },
    redirect: 'manual',
  });
  return { landing, page };
};

describe('a link read-link prints', () => {
  it('reaches the report through a cookie, with no header', async () => {
    const run = await readLink(['--read-token-env', 'READ_TOKEN', '--url', serve.url]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const link = lines[0] ?? '';
    expect(link.startsWith(`${serve.url}/report?link=`)).toBe(true);
    expect(run.stderr).toMatch(
      /^signfold: the link opens the report of the companies of READ_TOKEN until \d{4}-\d\d-\d\dT[\d:.]+Z .*change the token in READ_TOKEN to revoke it\n$/,
    );
    expect(run.stderr).not.toContain(TOKEN);
    const expires = Number(new URL(link).searchParams.get('link')?.split('.')[0]);
    expect(expires * 1000 - Date.now()).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);

    const { landing, page } = await open(link);
    expect(landing.status).toBe(303);
    expect(page?.status).toBe(200);
    expect(page?.url).toBe(`${serve.url}/report`);
    expect(await page?.text()).toContain('the live state of companies 1<');
  });

  it('is 401 with a page when changed, or when made from another token', async () => {
    const run = await readLink(['--read-token-env', 'READ_TOKEN:1', '--url', serve.url]);
    const link = run.stdout.trim();
    expect((await open(link)).page?.status).toBe(200);
    const changed = link.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    const refused = (await open(changed)).landing;
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('This report link is not valid');
    const other = await readLink(
      ['--read-token-env', 'READ_TOKEN', '--url', serve.url],
      'the-token-before-it-was-changed-0123',
    );
    expect((await open(other.stdout.trim())).landing.status).toBe(401);
  });

  it('lives --expires, and its cookie no longer', async () => {
    const run = await readLink([
      '--read-token-env',
      'READ_TOKEN',
      '--url',
      serve.url,
      '--expires',
      '90m',
    ]);
    const { landing } = await open(run.stdout.trim());
    const maxAge = Number(/Max-Age=(\d+)/.exec(landing.headers.getSetCookie()[0] ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(5400 - 60);
    expect(maxAge).toBeLessThanOrEqual(5400);
  });

  it('is for https when the URL is, under a path prefix', async () => {
    const run = await readLink([
      '--read-token-env',
      'READ_TOKEN',
      '--url',
      'https://reports.example.com/signfold',
    ]);
    expect(run.stdout).toMatch(
      /^https:\/\/reports\.example\.com\/signfold\/report\?link=\d+\.all\.s\.[\w-]{43}\n$/,
    );
  });
});

describe('read-link refuses', () => {
  const refusals: readonly [string, readonly string[], string | null, RegExp][] = [
    ['no token flag', ['--url', 'http://x'], TOKEN, /--read-token-env is required/],
    ['no url', ['--read-token-env', 'READ_TOKEN'], TOKEN, /--url is required/],
    [
      'an unset variable',
      ['--read-token-env', 'READ_TOKEN', '--url', 'http://x'],
      null,
      /READ_TOKEN: the variable is unset or empty/,
    ],
    [
      'a short token',
      ['--read-token-env', 'READ_TOKEN', '--url', 'http://x'],
      'short',
      /at least 16 characters/,
    ],
    [
      'a long life',
      ['--read-token-env', 'READ_TOKEN', '--url', 'http://x', '--expires', '32d'],
      TOKEN,
      /--expires must be at most 31d/,
    ],
    [
      'a bad duration',
      ['--read-token-env', 'READ_TOKEN', '--url', 'http://x', '--expires', '1y'],
      TOKEN,
      /--expires must be a positive duration/,
    ],
    [
      'another scheme',
      ['--read-token-env', 'READ_TOKEN', '--url', 'ftp://x'],
      TOKEN,
      /--url must be an http or https URL/,
    ],
    [
      'a query',
      ['--read-token-env', 'READ_TOKEN', '--url', 'http://x/?a=1'],
      TOKEN,
      /without credentials, query or fragment/,
    ],
    [
      'bad companies',
      ['--read-token-env', 'READ_TOKEN:one', '--url', 'http://x'],
      TOKEN,
      /company ids/,
    ],
    [
      'an argument',
      ['--read-token-env', 'READ_TOKEN', '--url', 'http://x', 'extra'],
      TOKEN,
      /unexpected argument 'extra'/,
    ],
  ];
  it.each(refusals)('%s: exit 2, one line, no token', async (_, args, token, message) => {
    const run = await readLink(args, token);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).not.toContain(TOKEN);
  });
});
