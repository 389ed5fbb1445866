/**
 * Text for the page: escaping (every string from the log is untrusted) and
 * the formatting of counts, rates and durations, fixed so the bytes never
 * depend on the machine's locale.
 */
import { plural } from '../core/plural.js';
import { visibleText } from '../core/visible-text.js';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * `text` safe in element content and in quoted attribute values: markup
 * escaped, and control and bidi characters shown as `\uXXXX` (by the CLI's
 * own rule, {@link visibleText}), so a name cannot reverse a cell or carry
 * terminal escapes into a page someone may `cat`.
 */
export const escapeHtml = (text: string): string =>
  visibleText(text).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** `12345` → `12,345`. */
export const formatCount = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A count and the noun that agrees with it: `1 bad line`, `0 bad lines`, `12,345 records`. */
export const countedText = (n: number, singular: string, pluralForm = `${singular}s`): string =>
  `${formatCount(n)} ${plural(n, singular, pluralForm)}`;

/** `0.9123` → `91.2 %`; `–` when there is no rate. */
export const formatRate = (rate: number | undefined): string =>
  rate === undefined ? '–' : `${(rate * 100).toFixed(1)} %`;

/**
 * A duration for people: `420 ms`, `42 s`, `17 min`, `5.3 h`, `2.1 d`; `–`
 * when unknown. Under a second it is milliseconds, never `0 s` (a median of
 * 300 ms is not nothing); each unit holds while its rounded number is below
 * the next unit (59.6 s is `1 min`, not `60 s`).
 */
export const formatDuration = (ms: number | undefined): string => {
  if (ms === undefined) return '–';
  const millis = Math.max(0, Math.round(ms));
  if (millis < 1000) return `${millis} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = (ms / 3_600_000).toFixed(1);
  if (Number(hours) < 48) return `${hours} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
};
