/**
 * `signfold/file`: the logs on a disk and in memory, and what works on them
 * beside the projector: the NDJSON file log (`openFileEventLog`, one writer
 * at a time, read by any number), the memory log, snapshot files, the file
 * reactor runner and erasure of a file log. The port they implement
 * (`EventLog`) and the projector are `signfold`'s.
 *
 * @packageDocumentation
 */

export type { ForgetReport, ForgetRequest } from '../engine/forget-report.js';
export { DEFAULT_MAX_LINE_BYTES } from '../engine/log-limits.js';
export type { FileEventLog, FileEventLogOptions, TornTail } from './file-event-log.js';
export { openFileEventLog } from './file-event-log.js';
export type { FileHandleIO, FileIO, OpenMode } from './file-io.js';
export type { FileReadOptions } from './file-record-stream.js';
export { readFileEventLog } from './file-record-stream.js';
export type { ForgetFileError } from './forget/forget-file-log.js';
export { forgetFileLog } from './forget/forget-file-log.js';
export type { LockHolder, LogError } from './log-error.js';
export type { MemoryEventLog, MemoryEventLogOptions } from './memory-event-log.js';
export { createMemoryEventLog } from './memory-event-log.js';
export type { LogLineContext } from './parse-log-line.js';
export { parseLogLine } from './parse-log-line.js';
export type { ExecutionCounts } from './reactors/effect-executor.js';
export type {
  FileReactorProgress,
  FileReactorRunner,
  FileReactorRunnerOptions,
  ReactorRunError,
  ReactorRunSummary,
  StopSignal,
} from './reactors/file-reactor-runner.js';
export {
  createFileReactorRunner,
  DEFAULT_SHUTDOWN_GRACE_MS,
} from './reactors/file-reactor-runner.js';
export { decodeSnapshot, encodeSnapshot } from './snapshot-checksum.js';
export type { SnapshotFileError } from './snapshot-file.js';
export { readSnapshotFile, writeSnapshotFile } from './snapshot-file.js';
export type { WriterLockOptions } from './writer-lock.js';
