/**
 * One colour per meaning, the same in every chart of every report: a colour
 * is chosen by what a series is (completed, declined, an event type…), never
 * by its position in a chart, so green is "completed" on every page and red
 * only ever "declined". Each meaning has a light and a dark shade (the page
 * follows `prefers-color-scheme`), each at least 3:1 against its background
 * (WCAG's contrast for graphics).
 * Charts refer to them as CSS classes (`k-completed`), so the stylesheet
 * holds the only copy of the values.
 */
import type { EventType } from '../../core/events/event-members.js';

/** The meanings a chart series can have, besides the event types. */
export type OutcomeMeaning =
  | 'sent'
  | 'completed'
  | 'declined'
  | 'open'
  | 'viewed'
  | 'not-viewed'
  | 'signed'
  | 'conflict'
  | 'share';

/** What a series shows, which fixes its colour. */
export type Meaning = OutcomeMeaning | EventType;

/** Light and dark shade of a meaning. */
interface Shades {
  readonly light: string;
  readonly dark: string;
}

const OUTCOMES: Readonly<Record<OutcomeMeaning, Shades>> = {
  sent: { light: '#2f6db5', dark: '#6ea8ea' },
  completed: { light: '#2a8a3e', dark: '#5cc46f' },
  signed: { light: '#2a8a3e', dark: '#5cc46f' },
  declined: { light: '#c9362b', dark: '#ff7b72' },
  open: { light: '#c07a00', dark: '#f0b440' },
  viewed: { light: '#c07a00', dark: '#f0b440' },
  'not-viewed': { light: '#8c959f', dark: '#8b949e' },
  conflict: { light: '#8a3ffc', dark: '#be95ff' },
  share: { light: '#1b1f24', dark: '#e6edf3' },
};

/**
 * Event types take the colour of the outcome they bring about (a
 * `sign-request-declined` is red like "declined"); the others have their own.
 */
const EVENT_TYPE_SHADES: Readonly<Record<EventType, Shades>> = {
  'template-activated': { light: '#00838f', dark: '#4dd0e1' },
  'template-inactivated': { light: '#6d4c41', dark: '#bcaaa4' },
  'template-deleted': { light: '#5d6b7a', dark: '#a8b3bf' },
  'sign-request-sent': OUTCOMES.sent,
  'sign-request-completed': OUTCOMES.completed,
  'sign-request-declined': OUTCOMES.declined,
  'sign-request-deleted': { light: '#424a53', dark: '#c9d1d9' },
  'participant-sent': { light: '#5b86c4', dark: '#9cc3f5' },
  'participant-viewed': OUTCOMES.viewed,
  'participant-downloaded': { light: '#b3539f', dark: '#e38fd3' },
  'participant-signed': { light: '#4f8a3a', dark: '#9ad77f' },
  'participant-declined': { light: '#d4574c', dark: '#ffaba3' },
};

/** Every meaning and its shades, in a fixed order (the stylesheet's). */
export const MEANING_SHADES: ReadonlyMap<Meaning, Shades> = new Map<Meaning, Shades>([
  ...(Object.entries(OUTCOMES) as [OutcomeMeaning, Shades][]),
  ...(Object.entries(EVENT_TYPE_SHADES) as [EventType, Shades][]),
]);

/** The CSS class that paints a meaning (`fill` in charts, `background` in legends). */
export const colourClass = (meaning: Meaning): string => `k-${meaning}`;

/** The stylesheet part: a custom property per meaning and scheme, and a class per meaning. */
export const colourCss = (): string => {
  const light: string[] = [];
  const dark: string[] = [];
  const classes: string[] = [];
  for (const [meaning, shades] of MEANING_SHADES) {
    light.push(`--k-${meaning}:${shades.light}`);
    dark.push(`--k-${meaning}:${shades.dark}`);
    classes.push(
      `.k-${meaning}{fill:var(--k-${meaning});stroke:var(--k-${meaning});background:var(--k-${meaning})}`,
    );
  }
  return `:root{${light.join(';')}}\n@media (prefers-color-scheme:dark){:root{${dark.join(';')}}}\n${classes.join('')}\n`;
};
