/**
 * Scripted stories: a scenario is a list of the service's commands (the
 * decider's `Command`s, docs/decider.md), played in order instead of a seeded
 * story. Each is decided against the state the service holds; one the service
 * refuses stops the scenario with the rule that refused it, naming its line.
 * What the read API shows beyond the events (emails, role order, fields) is
 * derived from the commands: roles in the order their participants were sent.
 */
import { type Command, isCommand } from '../core/decider/command.js';
import { decide } from '../core/decider/decide.js';
import { encodeEvent } from '../core/events/encode-event.js';
import { initialState } from '../core/projections/projection-state.js';
import { fold } from '../core/projections/reduce.js';
import {
  type EmittedEvent,
  emailOf,
  type Story,
  type StoryParticipant,
  type StoryRequest,
} from './story.js';

const MINUTE = 60_000;
const START = Date.UTC(2025, 2, 3, 8);

/**
 * The commands of a scenario's text: a JSON array of commands, or one command
 * per line (blank lines skipped). Throws an `Error` naming the line (or the
 * array index) of the first that is not a command.
 */
export const parseScenario = (text: string): Command[] => {
  const trimmed = text.trim();
  const items: { where: string; value: unknown }[] = [];
  const parse = (json: string, where: string): unknown => {
    try {
      return JSON.parse(json);
    } catch {
      throw new Error(`${where}: not JSON`);
    }
  };
  if (trimmed.startsWith('[')) {
    const array = parse(trimmed, 'the scenario');
    if (!Array.isArray(array)) throw new Error('the scenario: not a JSON array');
    array.forEach((value, index) => {
      items.push({ where: `item ${index + 1}`, value });
    });
  } else {
    text.split('\n').forEach((line, index) => {
      if (line.trim() !== '')
        items.push({ where: `line ${index + 1}`, value: parse(line, `line ${index + 1}`) });
    });
  }
  return items.map(({ where, value }) => {
    if (!isCommand(value))
      throw new Error(`${where}: not a command (an object whose type is a command type)`);
    return value;
  });
};

/** Plays `commands` in order; throws an `Error` naming the first one the service refuses, and why. */
export const playScenario = (commands: readonly Command[], seed: number): Story => {
  let state = initialState();
  let clock = START;
  const events: EmittedEvent[] = [];
  const requests = new Map<
    number,
    StoryRequest & { participants: StoryParticipant[]; fields: { id: number; roleId: number }[] }
  >();
  let nextFieldId = 1;
  let nextFieldDataId = 1;
  commands.forEach((command, index) => {
    clock += MINUTE;
    let decided: ReturnType<typeof decide>;
    try {
      decided = decide(command, state);
    } catch {
      throw new Error(`command ${index + 1} (${command.type}) is malformed`);
    }
    if (decided.isErr()) {
      throw new Error(`command ${index + 1}: ${decided.error.message} (${decided.error.kind})`);
    }
    state = fold(state, decided.value).state;
    for (const event of decided.value) {
      const at = events.length;
      events.push({
        index: at,
        deliveryId: `emu-${seed}-${at}`,
        event,
        wire: encodeEvent(event),
        at: clock,
      });
      if (!('signRequestId' in event)) continue;
      let request = requests.get(event.signRequestId);
      if (request === undefined) {
        request = {
          id: event.signRequestId,
          companyId: event.companyId,
          name: event.signRequestName,
          formType: 'Form',
          signing: 'parallel',
          participants: [],
          fields: [],
          savedAt: clock,
        };
        requests.set(event.signRequestId, request);
      }
      request.savedAt = clock;
      if (event.type === 'participant-sent') {
        const role = {
          id: event.roleId,
          name: event.roleName,
          sequence: request.participants.length,
        };
        request.fields.push({ id: nextFieldId++, roleId: event.roleId });
        request.participants.push({
          id: event.participantId,
          name: event.participantName,
          email: emailOf(event.participantName),
          role,
          fieldData: [],
        });
      }
      if (event.type === 'participant-signed') {
        const signer = request.participants.find((p) => p.id === event.participantId);
        if (signer !== undefined) {
          signer.fieldData = request.fields
            .filter((field) => field.roleId === signer.role.id)
            .map((field) => ({ id: nextFieldDataId++, fieldId: field.id }));
        }
      }
    }
  });
  return { events, state, requests: [...requests.values()] };
};
