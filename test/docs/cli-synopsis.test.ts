/**
 * The CLI synopsis of docs/cli.md (its Synopsis section, and each command's
 * own) agrees with the CLI's own `--help`. Nothing here names a command or
 * a flag: the commands are those `signfold --help` lists, so a command that
 * lands later is checked as soon as its help exists.
 *
 * A synopsis line is `signfold WORDS… ARGS…` (wrapped lines indented under
 * it). Its key is the lower-case words before the first argument (`replay`,
 * `pg work`); for each key, the flags the docs show must be exactly the flags
 * its help allows: those on its usage lines, those the usage block gives every
 * subcommand ("Every subcommand also takes …"), and the command's Options
 * list. So a flag left out, or shown on a subcommand
 * that does not take it (`[--drain]` on every `pg`), fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../cli/cli-helpers.js';

/** A synopsis line with its wrapped continuation lines joined. */
interface Synopsis {
  readonly key: string;
  readonly text: string;
}

const FLAG = /(?<![\w-])--?[a-z][a-z-]*/g;
const HELP_FLAGS = new Set(['-h', '--help']);

const flagsOf = (text: string): Set<string> =>
  new Set([...text.matchAll(FLAG)].map((m) => m[0]).filter((flag) => !HELP_FLAGS.has(flag)));

const sorted = (flags: Iterable<string>): string[] => [...flags].sort();

/** `signfold pg work --database URL` → `pg work`: the words before the first argument. */
const keyOf = (line: string): string => {
  const words: string[] = [];
  for (const word of line.trim().split(/\s+/).slice(1)) {
    if (!/^[a-z][a-z-]*$/.test(word)) break;
    words.push(word);
  }
  return words.join(' ');
};

/**
 * The synopsis lines of `lines`: each starts with `signfold ` (after an
 * optional `Usage:` and indentation); a more deeply indented line that does
 * not is its continuation. Other lines are returned as `others`.
 */
const synopses = (lines: readonly string[]): { found: Synopsis[]; others: string[] } => {
  const found: { key: string; text: string; indent: number }[] = [];
  const others: string[] = [];
  for (const raw of lines) {
    const line = raw.replace(/^Usage: /, '       ');
    const start = /^(\s*)signfold\s/.exec(line);
    const last = found.at(-1);
    if (start) {
      found.push({ key: keyOf(line), text: line.trim(), indent: start[1]?.length ?? 0 });
    } else if (last !== undefined && /^\s/.test(line) && line.search(/\S/) > last.indent) {
      last.text += ` ${line.trim()}`;
    } else {
      others.push(line);
    }
  }
  return { found: found.map(({ key, text }) => ({ key, text })), others };
};

/** What the help of one command allows, by key. */
const allowedByKey = (help: string): Map<string, Set<string>> => {
  const [usageBlock = ''] = help.split('\n\n');
  const { found, others } = synopses(usageBlock.split('\n'));
  const common = flagsOf(others.join(' '));
  // The Options list: a line that starts with the flag (`  -o, --out FILE   …`). It is about the
  // command as a whole; per-subcommand flags are shown on the usage lines.
  const options = help.split('\n\n').find((part) => part.startsWith('Options:')) ?? '';
  const listed = new Set<string>();
  for (const line of options.split('\n')) {
    const match = /^\s+(?:(-[a-z]), )?(--[a-z][a-z-]*)/.exec(line);
    if (match?.[1]) listed.add(match[1]);
    if (match?.[2]) listed.add(match[2]);
  }
  for (const flag of HELP_FLAGS) listed.delete(flag);
  const allowed = new Map<string, Set<string>>();
  for (const synopsis of found) {
    const flags = allowed.get(synopsis.key) ?? new Set(common);
    for (const flag of flagsOf(synopsis.text)) flags.add(flag);
    for (const flag of listed) flags.add(flag);
    allowed.set(synopsis.key, flags);
  }
  return allowed;
};

/** The flags a document shows for each key of `command`, from its synopsis lines. */
const shownByKey = (block: string, command: string): Map<string, Set<string>> => {
  const shown = new Map<string, Set<string>>();
  for (const synopsis of synopses(block.split('\n')).found) {
    if (synopsis.key.split(' ')[0] !== command) continue;
    const flags = shown.get(synopsis.key) ?? new Set<string>();
    for (const flag of flagsOf(synopsis.text)) flags.add(flag);
    shown.set(synopsis.key, flags);
  }
  return shown;
};

const asRecord = (map: Map<string, Set<string>>): Record<string, string[]> =>
  Object.fromEntries([...map].map(([key, flags]) => [key, sorted(flags)]));

/** The first ```text block after `heading` in `markdown`. */
const textBlockAfter = (markdown: string, heading: string): string => {
  const at = markdown.split('\n').indexOf(heading);
  if (at === -1) return '';
  const rest = markdown
    .split('\n')
    .slice(at + 1)
    .join('\n');
  return /```text\n([\s\S]*?)```/.exec(rest)?.[1] ?? '';
};

const CLI_DOC = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
const README_SYNOPSIS = textBlockAfter(CLI_DOC, '## Synopsis');

let commands: string[] = [];
const helps = new Map<string, string>();

beforeAll(async () => {
  const overview = await runCli(['--help']);
  const listed = overview.stdout.split('\n\n').find((part) => part.startsWith('Commands:')) ?? '';
  commands = listed
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[0] ?? '');
  const runs = await Promise.all(commands.map((command) => runCli([command, '--help'])));
  for (const [i, run] of runs.entries()) helps.set(commands[i] ?? '', run.stdout);
});

describe('the CLI synopses', () => {
  it('reads the commands and their help from the CLI', () => {
    expect(commands.length).toBeGreaterThanOrEqual(6);
    for (const command of commands) {
      expect(helps.get(command), command).toMatch(new RegExp(`^Usage: signfold ${command}\\b`));
      expect(allowedByKey(helps.get(command) ?? '').size, command).toBeGreaterThan(0);
    }
  });

  it('docs/cli.md Synopsis: every command and subcommand, each with exactly the flags its --help gives it', () => {
    expect(README_SYNOPSIS).not.toBe('');
    for (const command of commands) {
      const allowed = asRecord(allowedByKey(helps.get(command) ?? ''));
      expect(asRecord(shownByKey(README_SYNOPSIS, command)), command).toEqual(allowed);
    }
  });

  it('docs/cli.md: each command section opens with the synopsis of its --help', () => {
    for (const command of commands) {
      const block = textBlockAfter(CLI_DOC, `## ${command}`);
      const allowed = asRecord(allowedByKey(helps.get(command) ?? ''));
      expect(asRecord(shownByKey(block, command)), `## ${command}`).toEqual(allowed);
    }
  });

  it('docs/cli.md: the command table has a row for every command, naming every subcommand', () => {
    const rows = CLI_DOC.split('\n').filter((line) => /^\| \[`/.test(line));
    for (const command of commands) {
      const row = rows.find((line) => line.includes(`](#${command})`));
      expect(row, `a row linking #${command}`).toBeDefined();
      const subcommands = [...allowedByKey(helps.get(command) ?? '').keys()]
        .map((key) => key.split(' ')[1])
        .filter((word) => word !== undefined);
      for (const word of subcommands) expect(row, `${command} ${word}`).toContain(word);
    }
  });

  it('tells a flag left out, or shown where its subcommand does not take it', () => {
    const help = [
      'Usage: signfold x one LOG --database URL [--drain] [--batch N]',
      '                      [--lease MS]',
      '       signfold x two --database URL',
      'Every subcommand also takes [--timeout S].',
      '',
      '  --timeout S   give up',
    ].join('\n');
    const allowed = asRecord(allowedByKey(help));
    expect(allowed).toEqual({
      'x one': ['--batch', '--database', '--drain', '--lease', '--timeout'],
      'x two': ['--database', '--timeout'],
    });
    const right = [
      'signfold x one LOG --database URL [--drain] [--batch N] [--lease MS]',
      '               [--timeout S]',
      'signfold x two --database URL [--timeout S]',
    ].join('\n');
    expect(asRecord(shownByKey(right, 'x'))).toEqual(allowed);
    const drainEverywhere = 'signfold x one|two --database URL [--drain] [--timeout S]';
    expect(asRecord(shownByKey(drainEverywhere, 'x'))).not.toEqual(allowed);
    const leftOut = right.replace(' [--lease MS]', '');
    expect(asRecord(shownByKey(leftOut, 'x'))).not.toEqual(allowed);
  });
});
