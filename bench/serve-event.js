// The delivery body of the serve benchmarks (bench/serve.js, bench/ingest-ladder.js): one
// sign-request-sent event padded to a size, so every server under comparison gets the same bytes.

/**
 * A sign-request-sent event of about `bytes` bytes of JSON (padded with its name).
 * @param {number} id
 * @param {number} bytes
 */
export const eventOfSize = (id, bytes) => {
  const event = {
    type: 'sign-request-sent',
    companyId: 1,
    signRequestId: id,
    signRequestName: '',
    templateId: 100,
    templateName: 'NDA',
    senderId: 20,
    senderName: 'Sam Sender',
    ownerId: 10,
    ownerName: 'Olive Owner',
  };
  const base = JSON.stringify(event).length;
  event.signRequestName = 'x'.repeat(Math.max(1, bytes - base));
  return JSON.stringify(event);
};
