import type { AppendOutcome, BatchEventLog, EventLog } from './event-log.js';

/** `append` as a batch of one: the single-event append of every log with `appendBatch`. */
export const appendOne =
  (appendBatch: BatchEventLog['appendBatch']): EventLog['append'] =>
  async (event, options) => {
    const result = await appendBatch([{ ...options, event }]);
    return result.map((outcomes) => outcomes[0] as AppendOutcome);
  };
