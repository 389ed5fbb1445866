/**
 * Text for failure messages: records and the events that led to them, so a
 * failing specification reads without a debugger.
 */
import { inspect } from 'node:util';
import type { SignEvent } from '../index.js';

/** A value as a reader would write it: compact, every level shown. */
export const show = (value: unknown): string =>
  inspect(value, { depth: 6, breakLength: Number.POSITIVE_INFINITY, compact: true });

/** One line per event: its number, type and members. */
export const describeEvents = (label: string, events: readonly SignEvent[]): string => {
  if (events.length === 0) return `${label}: (no events)`;
  const lines = events.map((event, index) => {
    const { type, ...members } = event;
    return `  ${index + 1}. ${type} ${JSON.stringify(members)}`;
  });
  return `${label}:\n${lines.join('\n')}`;
};
