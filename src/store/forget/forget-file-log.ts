/** Placeholder: the file engine's forget (issue 33), being written. */
import { err, type Result } from 'neverthrow';
import type { ForgetReport, ForgetRequest } from '../../engine/forget-report.js';

/** Forgets `request` in the log at `path`. */
export const forgetFileLog = async (
  _path: string,
  _request: ForgetRequest,
): Promise<Result<ForgetReport, { kind: string; message: string }>> =>
  err({ kind: 'io', message: 'not built yet' });
