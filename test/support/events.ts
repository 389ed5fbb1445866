import { decodeEvent } from '../../src/core/events/decode-event.js';
import { EVENT_MEMBERS, type EventType } from '../../src/core/events/event-members.js';
import type { EventOf } from '../../src/core/events/sign-event.js';

/** Overrides for a test event, with plain numbers for ids. */
export type EventInput = Readonly<Record<string, string | number>>;

const DEFAULTS: Readonly<Record<string, string | number>> = {
  companyId: 1,
  ownerId: 10,
  ownerName: 'Olive Owner',
  templateId: 100,
  templateName: 'NDA',
  senderId: 20,
  senderName: 'Sam Sender',
  signRequestId: 1000,
  signRequestName: 'NDA for Ada',
  participantId: 5,
  participantName: 'Ada Lovelace',
  roleId: 7,
  roleName: 'Signer',
};

/**
 * Builds a valid event of `type` through the real decoder: the members its type
 * carries, from defaults unless overridden. Throws on an invalid override, so a
 * test that builds a bad event by accident fails loudly.
 */
export const ev = <T extends EventType>(type: T, overrides: EventInput = {}): EventOf<T> => {
  const wire: Record<string, unknown> = { type };
  for (const name of EVENT_MEMBERS[type]) wire[name] = overrides[name] ?? DEFAULTS[name];
  const decoded = decodeEvent(wire);
  if (decoded.isErr()) throw new Error(`bad test event: ${decoded.error.message}`);
  return decoded.value as EventOf<T>;
};
