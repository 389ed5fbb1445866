import { describe, expect, it } from 'vitest';
import { databaseError, sqlState } from '../../src/postgres/postgres-error.js';

/** An error as Node raises it for a socket: a `code` and a `syscall`. */
const systemError = (message: string, code: string, syscall: string): Error =>
  Object.assign(new Error(message), { code, syscall, errno: -1 });

describe('databaseError labels', () => {
  it('a server error keeps its SQLSTATE', () => {
    const server = Object.assign(new Error('relation "x" does not exist'), {
      code: '42P01',
      severity: 'ERROR',
    });
    expect(sqlState(server)).toBe('42P01');
    expect(databaseError(server, 'reading x')).toEqual({
      kind: 'database',
      code: '42P01',
      message: 'reading x failed: relation "x" does not exist (SQLSTATE 42P01)',
    });
  });

  it("Node's socket errors are no SQLSTATE, even a five-letter one, and read in words", () => {
    const refused = systemError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED', 'connect');
    expect(databaseError(refused, 'connecting')).toEqual({
      kind: 'database',
      code: undefined,
      message: 'connecting failed: connect ECONNREFUSED 127.0.0.1:1 (connection refused)',
      retryable: true,
    });
    const pipe = systemError('write EPIPE', 'EPIPE', 'write');
    expect(sqlState(pipe)).toBeUndefined();
    expect(databaseError(pipe, 'appending').message).toBe(
      'appending failed: write EPIPE (connection closed)',
    );
    const other = systemError('open EACCES /x', 'EACCES', 'open');
    expect(databaseError(other, 'reading').message).toBe('reading failed: open EACCES /x');
  });

  it('an error without a message (Node tried several addresses) says what its parts say', () => {
    const both = Object.assign(
      new AggregateError(
        [
          systemError('connect ECONNREFUSED ::1:1', 'ECONNREFUSED', 'connect'),
          systemError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED', 'connect'),
        ],
        '',
      ),
      { code: 'ECONNREFUSED' },
    );
    expect(databaseError(both, 'connecting').message).toBe(
      'connecting failed: connect ECONNREFUSED ::1:1 (connection refused)',
    );
  });
});
