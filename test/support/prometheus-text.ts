/**
 * Reading a scrape in the tests: the Prometheus text format's samples (name,
 * labels, value), and a scrape bounded in time, so a metrics server that
 * stalls fails the test instead of hanging it.
 */

/** One sample of a scrape. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of an exposition text (comments skipped). */
export const parseSamples = (text: string): Sample[] =>
  text.split('\n').flatMap((line) => {
    const found = SAMPLE.exec(line);
    if (found === null || line.startsWith('#')) return [];
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of (found[2] ?? '').matchAll(LABEL)) labels[key] = value;
    return [{ name: found[1] ?? '', labels, value: Number(found[3]) }];
  });

/** The names of the metric families a scrape declares (`# TYPE` lines). */
export const familyNames = (text: string): Set<string> =>
  new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] ?? ''));

/** The sum of the samples named `name` whose labels include `labels`. */
export const total = (
  samples: readonly Sample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

/** GETs `url`, giving up after `timeoutMs`: the status and the body. */
export const scrape = async (
  url: string,
  timeoutMs = 10_000,
): Promise<{ status: number; text: string; samples: Sample[] }> => {
  const answer = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await answer.text();
  return { status: answer.status, text, samples: parseSamples(text) };
};
