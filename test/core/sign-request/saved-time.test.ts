import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSavedTime, savedTimeParts } from '../../../src/core/sign-request/saved-time.js';
import { savedTimeArb } from './sign-request-arbitraries.js';

describe('parseSavedTime', () => {
  it.each([
    '2024-02-29 00:00:00',
    '2000-02-29 12:30:45',
    '1999-12-31 23:59:59',
    '0000-01-01 00:00:00',
    '9999-12-31 23:59:59',
  ])('accepts %s', (text) => {
    expect(parseSavedTime(text)._unsafeUnwrap()).toBe(text);
  });

  it.each([
    ['1900-02-29 00:00:00', 'day 29 does not exist in 1900-02'],
    ['2023-02-29 00:00:00', 'day 29 does not exist in 2023-02'],
    ['2024-04-31 00:00:00', 'day 31 does not exist in 2024-04'],
    ['2024-00-10 00:00:00', 'month 0'],
    ['2024-13-10 00:00:00', 'month 13'],
    ['2024-01-00 00:00:00', 'day 0'],
    ['2024-01-01 24:00:00', 'hour 24'],
    ['2024-01-01 00:60:00', 'minute 60'],
    ['2024-01-01 00:00:60', 'second 60'],
    ['2024-01-01T00:00:00', 'YYYY-MM-DD HH:MM:SS'],
    ['2024-01-01 00:00:00Z', 'YYYY-MM-DD HH:MM:SS'],
    ['2024-01-01 00:00', 'YYYY-MM-DD HH:MM:SS'],
    ['２０２４-01-01 00:00:00', 'YYYY-MM-DD HH:MM:SS'],
    [' 2024-01-01 00:00:0', 'YYYY-MM-DD HH:MM:SS'],
  ])('rejects %s', (text, reason) => {
    const error = parseSavedTime(text)._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: 'invalid-value', path: '' });
    expect(error.message).toContain(reason);
  });

  it('agrees with a UTC calendar on every day of 400 years', () => {
    // Only as an oracle for calendar validity; the library itself never builds a Date.
    const rejected: string[] = [];
    let days = 0;
    for (let t = Date.UTC(2000, 0, 1); t < Date.UTC(2400, 0, 1); t += 86_400_000) {
      const date = new Date(t).toISOString().slice(0, 10);
      if (parseSavedTime(`${date} 00:00:00`).isErr()) rejected.push(date);
      days++;
    }
    expect(rejected).toEqual([]);
    // 146,097 days per 400 Gregorian years: no 29 February too many or too few.
    expect(days).toBe(146_097);
    let accepted = 0;
    for (let year = 2000; year < 2400; year++) {
      for (let month = 1; month <= 12; month++) {
        for (let day = 1; day <= 31; day++) {
          const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} 00:00:00`;
          if (parseSavedTime(text).isOk()) accepted++;
        }
      }
    }
    expect(accepted).toBe(146_097);
  });

  it('rejects huge input', () => {
    expect(parseSavedTime('2'.repeat(5_000_000)).isErr()).toBe(true);
  });

  it('accepts exactly the calendar times a UTC calendar knows', () => {
    const layout = fc.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    fc.assert(
      fc.property(fc.oneof(fc.string(), layout, savedTimeArb), (s) => {
        const [y, mo, d, h, mi, sec] = (s.match(/\d+/g) ?? []).map(Number);
        // The test's oracle only; setUTCFullYear keeps years below 100 as written.
        const date = new Date(0);
        date.setUTCFullYear(y ?? Number.NaN, (mo ?? 0) - 1, d);
        date.setUTCHours(h ?? Number.NaN, mi, sec);
        const real =
          /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(s) &&
          date.getUTCFullYear() === y &&
          date.getUTCMonth() + 1 === mo &&
          date.getUTCDate() === d &&
          date.getUTCHours() === h &&
          date.getUTCMinutes() === mi &&
          date.getUTCSeconds() === sec;
        expect(parseSavedTime(s).isOk()).toBe(real);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('savedTimeParts', () => {
  it('returns the fields exactly as written, with no zone applied', () => {
    const time = parseSavedTime('2024-02-29 23:05:09')._unsafeUnwrap();
    expect(savedTimeParts(time)).toEqual({
      year: 2024,
      month: 2,
      day: 29,
      hour: 23,
      minute: 5,
      second: 9,
    });
  });

  it('round-trips through formatting, and string order is time order', () => {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    fc.assert(
      fc.property(savedTimeArb, savedTimeArb, (a, b) => {
        const p = savedTimeParts(a);
        const text = `${pad(p.year, 4)}-${pad(p.month, 2)}-${pad(p.day, 2)} ${pad(p.hour, 2)}:${pad(p.minute, 2)}:${pad(p.second, 2)}`;
        expect(text).toBe(a);
        const q = savedTimeParts(b);
        const key = (x: typeof p) => [x.year, x.month, x.day, x.hour, x.minute, x.second];
        const byParts = key(p).join() === key(q).join() ? 0 : compareTuples(key(p), key(q));
        expect(a < b).toBe(byParts < 0);
      }),
    );
  });
});

const compareTuples = (a: number[], b: number[]): number => {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
};
