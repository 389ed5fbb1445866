/**
 * What every event log stores unchanged. PostgreSQL text is UTF-8 and holds
 * neither NUL nor unpaired UTF-16 surrogates, so a delivery id with either is
 * refused alike whatever the log, and a sender's answer never depends on where
 * events are stored.
 */

// Under the `u` flag a surrogate range matches only surrogates that are not part of a pair.
const UNPAIRED_SURROGATE = /[\ud800-\udfff]/u;

/** Why `text` cannot be stored unchanged by every log, or `undefined` when it can. */
export const unstorableText = (
  text: string,
): 'contains NUL' | 'contains an unpaired UTF-16 surrogate' | undefined => {
  if (text.includes('\u0000')) return 'contains NUL';
  if (UNPAIRED_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
};
