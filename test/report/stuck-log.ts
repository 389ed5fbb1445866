/**
 * A log with many stuck requests, as the operations lead of issue 34 had
 * (66): each open for weeks with two participants, one of whom viewed it,
 * so every row of the stuck list carries an awaited list and an inspect
 * command line, the cells that made a phone's row tall.
 */
import { events } from '../../src/testing/index.js';

export const DAY = 86_400_000;
/** The first receivedAt of the log. */
export const STUCK_START = Date.UTC(2025, 2, 3, 9, 0, 0);

/**
 * The log's lines: `count` requests sent an hour apart from {@link STUCK_START}, none finished;
 * in the first `signed` of them both participants signed (a completion lost).
 */
export const stuckLogLines = (count = 66, signed = 0): string[] => {
  const lines: string[] = [];
  const add = (at: number, event: object): void => {
    lines.push(
      JSON.stringify({
        position: lines.length + 1,
        receivedAt: new Date(STUCK_START + at).toISOString(),
        deliveryId: `dlv-${lines.length + 1}`,
        event,
      }),
    );
  };
  const template = {
    companyId: 1,
    templateId: 500,
    templateName: 'Equipment Rental Agreement',
    ownerId: 7,
    ownerName: 'Grace Hopper',
  };
  add(0, events.templateActivated(template));
  for (let n = 0; n < count; n += 1) {
    const request = {
      ...template,
      signRequestId: 1000 + n,
      signRequestName: `Rental ${1000 + n}, warehouse ${n % 7}`,
      senderId: 30 + (n % 3),
      senderName: ['Ada Lovelace', 'Alan Turing', 'Edsger Dijkstra'][n % 3] ?? 'sender',
    };
    const at = n * 3_600_000 + 1000;
    add(at, events.signRequestSent(request));
    for (const participantId of [1, 2]) {
      const who = { ...request, participantId, participantName: `Signer ${participantId}-${n}` };
      add(at + participantId * 60_000, events.participantSent(who));
      if (participantId === 1) add(at + 600_000, events.participantViewed(who));
      if (n < signed) add(at + 1_200_000, events.participantSigned(who));
    }
  }
  return lines;
};
