/**
 * Singular or plural by a count, for the messages the CLI and the test kit
 * print: `1 problem`, `2 problems`, `status differs`, `status, name differ`.
 * English only, and only the regular forms the messages need: irregular ones
 * (`1 entry`, `2 entries`; verbs) are passed in.
 */

/** `singular` when `count` is 1, else `pluralForm` (by default `singular` + `s`). */
export const plural = (count: number, singular: string, pluralForm = `${singular}s`): string =>
  count === 1 ? singular : pluralForm;

/** `count` and the noun that agrees with it: `1 bad line`, `0 bad lines`, `3 no-ops`. */
export const counted = (count: number, singular: string, pluralForm = `${singular}s`): string =>
  `${count} ${plural(count, singular, pluralForm)}`;
