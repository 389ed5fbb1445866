/**
 * The one classifier of failures (src/postgres/postgres-error.ts): which
 * ones may be an event's fault (the skip advice), which ones pass (retry),
 * read from the code as PostgreSQL or Node raised it, through every wrapper.
 */
import { describe, expect, it } from 'vitest';
import {
  databaseError,
  errorCode,
  isRetryable,
  isRetryableCause,
  mayBeAboutTheData,
  sqlState,
} from '../../src/postgres/postgres-error.js';
import {
  BatchWriteError,
  isEventFailure,
  mayBeAboutAnEvent,
} from '../../src/postgres/worker/event-failure.js';

const server = (code: string, message = 'refused'): Error =>
  Object.assign(new Error(message), { code, severity: 'ERROR' });
const socket = (code: string): Error =>
  Object.assign(new Error(`read ${code}`), { code, syscall: 'read', errno: -1 });

/** A batch of one event that failed with `failure`. */
const ofOne = (failure: unknown): BatchWriteError => new BatchWriteError(3, 41, 41, 1, failure);

describe('the skip advice', () => {
  const infrastructure = [
    server('08006', 'connection failure'),
    server('57P01', 'terminating connection due to administrator command'),
    server('57014', 'canceling statement due to statement timeout'),
    server('55P03', 'canceling statement due to lock timeout'),
    server('53300', 'too many connections'),
    server('58030', 'could not write'),
    server('25P03', 'terminating connection due to idle-in-transaction timeout'),
    server('40001', 'could not serialize'),
    socket('ECONNRESET'),
    socket('EPIPE'),
    new Error('Connection terminated unexpectedly'),
    new Error('Query read timeout'),
    new Error('timeout exceeded when trying to connect'),
    new TypeError('a bug, not a refusal'),
  ];
  it.each(infrastructure.map((e) => [e.message, e]))(
    'is never given for %s, even for a batch of one',
    (_, failure) => {
      expect(isEventFailure(ofOne(failure))).toBe(false);
      expect(mayBeAboutAnEvent(new BatchWriteError(3, 1, 9, 9, failure))).toBe(false);
    },
  );

  it('is given for a refusal of the values of a batch of one, and narrowed for a larger one', () => {
    for (const code of ['22P02', '23505', '23514', '54000', '22001']) {
      expect(isEventFailure(ofOne(server(code)))).toBe(true);
      expect(mayBeAboutAnEvent(new BatchWriteError(3, 1, 9, 9, server(code)))).toBe(true);
      expect(isEventFailure(new BatchWriteError(3, 1, 9, 9, server(code)))).toBe(false);
    }
  });
});

describe('codes through wrappers', () => {
  it('BatchWriteError keeps the code as raised, SQLSTATE or socket code', () => {
    expect(ofOne(server('55P03')).code).toBe('55P03');
    expect(ofOne(socket('ECONNRESET')).code).toBe('ECONNRESET');
    expect(ofOne(new Error('Connection terminated unexpectedly')).code).toBeUndefined();
    // A five-letter socket code is still no SQLSTATE, wrapped or not.
    expect(sqlState(ofOne(socket('EPIPE')))).toBeUndefined();
    expect(sqlState(ofOne(server('57P01')))).toBe('57P01');
    expect(errorCode(new Error('outer', { cause: ofOne(server('08006')) }))).toBe('08006');
  });

  it('databaseError reads the code of the root, whatever the batch size', () => {
    for (const events of [1, 5000]) {
      const wrapped = new BatchWriteError(0, 1, events, events, server('57P01', 'terminating'));
      const error = databaseError(wrapped, 'projecting');
      expect(error).toMatchObject({ kind: 'database', code: '57P01', retryable: true });
      expect(error.message).toBe('projecting failed: terminating (SQLSTATE 57P01)');
    }
  });
});

describe('what passes and what does not', () => {
  it('the connection, deadlines, locks, resources, shutdowns and socket errors pass', () => {
    for (const cause of [
      server('08006'),
      server('57P01'),
      server('57P03'),
      server('55P03'),
      server('53300'),
      server('25P03'),
      server('40P01'),
      socket('ECONNREFUSED'),
      socket('ETIMEDOUT'),
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout'),
      new Error('Connection terminated due to connection timeout'),
    ]) {
      expect(isRetryableCause(cause)).toBe(true);
      expect(isRetryable(databaseError(cause, 'x'))).toBe(true);
      expect(mayBeAboutTheData(cause)).toBe(false);
    }
  });

  it('authentication, a missing schema or database, and refused values do not', () => {
    for (const cause of [
      server('28P01'),
      server('28000'),
      server('3D000'),
      server('42P01'),
      server('3F000'),
      server('23505'),
      server('25P02'),
      new TypeError('x is undefined'),
    ]) {
      expect(isRetryableCause(cause)).toBe(false);
      expect(isRetryable(databaseError(cause, 'x'))).toBe(false);
    }
  });
});
