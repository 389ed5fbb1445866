import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/core/events/event-members.js';
import { colourCss, MEANING_SHADES } from '../../../src/report/charts/chart-colours.js';

/** WCAG relative luminance of `#rrggbb`. */
const luminance = (hex: string): number => {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
};
const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
};

describe('chart colours', () => {
  it('has a colour for every event type and outcome, fixed by name', () => {
    for (const type of EVENT_TYPES) expect(MEANING_SHADES.has(type), type).toBe(true);
    for (const meaning of ['sent', 'completed', 'declined', 'open', 'conflict'] as const) {
      expect(MEANING_SHADES.has(meaning), meaning).toBe(true);
    }
    const css = colourCss();
    expect(css).toContain('--k-declined:#c9362b');
    expect(css).toContain('.k-sign-request-sent{fill:var(--k-sign-request-sent)');
  });

  it('keeps red for declining: no other meaning shares its shade', () => {
    const red = MEANING_SHADES.get('declined');
    const same = [...MEANING_SHADES]
      .filter(([, shades]) => shades.light === red?.light || shades.dark === red?.dark)
      .map(([meaning]) => meaning);
    expect(same.sort()).toEqual(['declined', 'sign-request-declined']);
  });

  it('stands out from the page: at least 3:1 against the light and the dark background (WCAG 1.4.11)', () => {
    for (const [meaning, shades] of MEANING_SHADES) {
      expect(contrast(shades.light, '#ffffff'), `${meaning} light`).toBeGreaterThanOrEqual(3);
      expect(contrast(shades.dark, '#0d1117'), `${meaning} dark`).toBeGreaterThanOrEqual(3);
    }
  });
});
