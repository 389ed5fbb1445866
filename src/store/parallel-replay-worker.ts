/**
 * A partition worker of the parallel replay. It streams the whole file (the
 * cheap part: read and split), but parses, decodes and folds only the lines of
 * its partition and the shared ones, exactly as the sequential reader would
 * classify them. Routing hints read from raw text are verified after parsing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LogRecord } from '../engine/event-log.js';
import { createProjector } from '../engine/projector.js';
import { takeSnapshot } from '../engine/snapshot.js';
import { nodeFileIO } from './file-io.js';
import { LineClassifier, TORN_TAIL_REASON } from './line-classifier.js';
import { type LineSink, LineSplitter } from './line-splitter.js';
import { DEFAULT_CHUNK_BYTES } from './log-limits.js';
import type { WorkerReport, WorkerSetup } from './parallel-replay-protocol.js';
import { isBlankLine, partitionOf, positionHint, signRequestIdHint } from './partition-routing.js';

const setup = workerData as WorkerSetup;
const primary = setup.index === 0;
const projector = createProjector(setup.options);
const classifier = new LineClassifier(1);
let diverged: string | undefined;
let lastPosition = 0;

/** Checks that a record belongs where the hint sent it; returns a reason if not. */
const misrouted = (record: LogRecord, shared: boolean): string | undefined => {
  if (record.kind !== 'entry' || typeof record.event !== 'object' || record.event === null) {
    return undefined;
  }
  const { signRequestId, type } = record.event as { signRequestId?: unknown; type?: unknown };
  if (typeof signRequestId === 'number') {
    if (shared) return `line ${record.line}: a sign-request event without a routing hint`;
    if (partitionOf(signRequestId, setup.partitions) !== setup.index) {
      return `line ${record.line}: routed to the wrong partition`;
    }
  } else if (!shared && typeof type === 'string' && type.startsWith('template-')) {
    return `line ${record.line}: a template event with a sign-request hint`;
  }
  return undefined;
};

/** The position the sequential reader gives this line, if positions keep increasing. */
const expect = (position: number, lineNo: number): number => {
  if (position <= lastPosition) diverged ??= `line ${lineNo}: positions do not increase`;
  lastPosition = position;
  return position;
};

const apply = (expected: number, shared: boolean): void => {
  for (const record of classifier.take()) {
    if (diverged !== undefined) return;
    if (record.position !== expected) {
      diverged = `line ${record.line}: position ${record.position}, expected ${expected}`;
      return;
    }
    diverged = misrouted(record, shared);
    if (primary || !shared) projector.applyRecord(record);
    else if (record.kind === 'entry') projector.applyTemplateShadow(record.event);
  }
};

/** Decides per line whether this partition takes it, before any parsing. */
const route = (text: string, lineNo: number, classify: () => void): void => {
  const expected = expect(positionHint(text, lineNo), lineNo);
  const id = signRequestIdHint(text);
  if (id !== undefined && partitionOf(id, setup.partitions) !== setup.index) return;
  classify();
  apply(expected, id === undefined);
};

const sink: LineSink = {
  line(text, lineNo) {
    if (!isBlankLine(text)) route(text, lineNo, () => classifier.line(text, lineNo));
  },
  badLine(preview, lineNo, reason) {
    const expected = expect(lineNo, lineNo);
    if (!primary) return;
    classifier.badLine(preview, lineNo, reason);
    apply(expected, true);
  },
};

const run = async (): Promise<WorkerReport> => {
  const handle = await nodeFileIO.open(setup.path, 'read');
  try {
    const splitter = new LineSplitter(sink, setup.maxLineBytes);
    const buffer = Buffer.allocUnsafe(DEFAULT_CHUNK_BYTES);
    for (let offset = 0; ; ) {
      const read = await handle.read(buffer, 0, buffer.length, offset);
      if (read === 0) break;
      offset += read;
      splitter.push(read === buffer.length ? buffer : buffer.subarray(0, read));
    }
    const tail = splitter.finish();
    if (tail.kind === 'fragment') {
      const text = tail.text;
      if (text === undefined) sink.badLine(tail.preview, tail.line, TORN_TAIL_REASON);
      else {
        route(text, tail.line, () => {
          if (!classifier.fragment(text, tail.line)) {
            classifier.badLine(tail.preview, tail.line, TORN_TAIL_REASON);
          }
        });
      }
    }
  } finally {
    await handle.close();
  }
  return { snapshot: takeSnapshot(projector), stats: projector.stats(), diverged };
};

run().then(
  (report) => parentPort?.postMessage(report),
  (cause: unknown) => {
    throw cause;
  },
);
