import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import { participantId, signRequestId } from '../../src/core/ids.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';

const folder = mkdtempSync(join(tmpdir(), 'signfold-tail-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const line = (position: number, event: object) =>
  `${JSON.stringify({ position, receivedAt: '2025-01-01T00:00:00.000Z', event })}\n`;
const fileLog = (path: string) => ({ read: (o: object) => readFileEventLog(path, o) });

describe('an unterminated last line (a write in progress)', () => {
  it('is neither applied nor quarantined, and the checkpoint stays before it', () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-sent') });
    const torn: LogRecord = {
      kind: 'bad-line',
      position: 2,
      line: 2,
      raw: '{"position":2,"rec',
      reason: 'torn tail (incomplete last line)',
      tornTail: true,
    };
    expect(projector.applyRecord(torn)._unsafeUnwrap()).toBe('incomplete');
    expect(projector.checkpoint).toBe(1);
    expect(projector.quarantine()).toEqual([]);
    expect(projector.incompleteTail()).toEqual({ position: 2, line: 2 });
    // Once the line is complete it applies normally and the tail is gone.
    expect(
      projector.apply({ position: 2, event: buildEvent('participant-viewed') })._unsafeUnwrap(),
    ).toBe('applied');
    expect(projector.incompleteTail()).toBeUndefined();
  });

  it('a snapshot taken while a writer is mid-line resumes to the same state as a full replay', async () => {
    const path = join(folder, 'live.ndjson');
    const sent = line(1, encodeEvent(buildEvent('participant-sent')));
    const viewed = line(2, encodeEvent(buildEvent('participant-viewed')));
    const signed = line(3, encodeEvent(buildEvent('participant-signed')));
    writeFileSync(path, sent + viewed.slice(0, 25));

    const first = createProjector();
    await first.replay(fileLog(path));
    expect(first.checkpoint).toBe(1);
    expect(first.incompleteTail()).toEqual({ position: 2, line: 2 });
    const snapshot = JSON.parse(JSON.stringify(takeSnapshot(first)));

    await appendFile(path, viewed.slice(25) + signed);
    const resumed = restoreProjector(snapshot)._unsafeUnwrap();
    await resumed.replay(fileLog(path));
    const full = createProjector();
    await full.replay(fileLog(path));

    const ada = (p: typeof full) => p.getParticipant(signRequestId(1000), participantId(5));
    expect(ada(resumed)).toEqual(ada(full));
    expect(ada(full)).toMatchObject({ status: 'signed', viewCount: 1 });
    expect(resumed.quarantine()).toEqual([]);
    expect(resumed.checkpoint).toBe(3);
  });
});
