/**
 * docs/prometheus-alerts.yml (issue 34): every metric its rules use is one a
 * signfold process exports, read from live scrapes (a `serve --log
 * --reactors`, which has the delivery metrics and the projection and reactor
 * metrics of `react`, and a `react --metrics-port`), not from a list kept by
 * hand; each of the four alerts is there with a `for:` duration, and the
 * docs point to the file. The YAML is read with regular expressions (no
 * YAML parser is a dependency): what is checked is the lines that matter.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { startServe } from '../cli/serve/serve-process.js';
import { startMetricsProcess } from '../support/metrics-process.js';
import { familyNames, scrape } from '../support/prometheus-text.js';

afterAll(removeTempDirs);

const RULES = join(ROOT, 'docs/prometheus-alerts.yml');
const REACTORS = join(ROOT, 'test/fixtures/reactors/every-event.mjs');

/** The samples a family exports under its TYPE name (a counter's `_total` is part of it in prom-client). */
const exported = (text: string): Set<string> => familyNames(text);

describe('docs/prometheus-alerts.yml', () => {
  it('uses only metrics the processes export, and has its four alerts with durations', async () => {
    const rules = await readFile(RULES, 'utf8');
    const alerts = [...rules.matchAll(/^\s+- alert: (\S+)$/gm)].map((m) => m[1]);
    expect(alerts).toEqual([
      'SignfoldProjectionStuck',
      'SignfoldParkedEffects',
      'SignfoldNoDelivery',
      'SignfoldGaugesUnreadable',
    ]);
    expect([...rules.matchAll(/^\s+for: (\d+m)$/gm)]).toHaveLength(4);
    const used = new Set([...rules.matchAll(/\bsignfold_[a-z_]+\b/g)].map((m) => m[0]));
    expect(used.size).toBeGreaterThanOrEqual(4);

    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeFile(log, '');
    const serve = await startServe(
      ['--log', log, '--reactors', REACTORS, '--insecure-no-signature'],
      {
        ...process.env,
        SIGNFOLD_WEBHOOK_SECRET: undefined,
      },
    );
    let names: Set<string>;
    try {
      const served = await scrape(`${serve.url}/metrics`);
      expect(served.status).toBe(200);
      names = exported(served.text);
    } finally {
      await serve.stop();
    }
    const react = await startMetricsProcess([
      'react',
      log,
      '--reactors',
      REACTORS,
      '--metrics-port',
      '0',
    ]);
    try {
      const reacted = await scrape(react.url);
      expect(reacted.status).toBe(200);
      for (const name of exported(reacted.text)) names.add(name);
    } finally {
      react.child.kill('SIGTERM');
      expect(await react.exited).toBe(0);
    }
    for (const name of used) expect(names, name).toContain(name);
    // The names issue 34 fixes, as tests outside the repository read them.
    for (const name of [
      'signfold_projection_lag_events',
      'signfold_projection_lag_seconds',
      'signfold_events_total',
      'signfold_effects',
      'signfold_effect_attempts_total',
      'signfold_timer_next_due_seconds',
    ]) {
      expect(names, name).toContain(name);
    }
  });

  it('is where the docs say', async () => {
    const cli = await readFile(join(ROOT, 'docs/cli.md'), 'utf8');
    expect(cli).toContain('[prometheus-alerts.yml](prometheus-alerts.yml)');
    expect(cli).not.toContain('There is no projection-lag gauge');
  });
});
