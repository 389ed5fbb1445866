import { describe, expect, it } from 'vitest';
import { attemptEffect, MAX_ERROR_LENGTH } from '../../../src/core/reactors/attempt-effect.js';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import { idempotencyKeyOf } from '../../../src/core/reactors/idempotency-key.js';
import { InFlightLimit, MAX_IN_FLIGHT } from '../../../src/core/reactors/in-flight.js';

const context = { idempotencyKey: 'r:1:0', attempt: 1, signal: new AbortController().signal };
const effect = { type: 'fetch' };
const withExecute = (execute: () => unknown) =>
  defineReactor({ name: 'r', react: () => [], execute });

describe('attemptEffect', () => {
  it('is ok when execute resolves, and passes the context through', async () => {
    let seen: unknown;
    const reactor = defineReactor({
      name: 'r',
      react: () => [],
      execute: (_e, ctx) => {
        seen = ctx;
      },
    });
    expect(await attemptEffect(reactor, effect, context)).toEqual({ ok: true });
    expect(seen).toBe(context);
  });

  it('turns a throw, a rejection, a non-Error and a missing execute into a failure', async () => {
    expect(
      await attemptEffect(
        withExecute(() => {
          throw new Error('boom');
        }),
        effect,
        context,
      ),
    ).toEqual({ ok: false, error: 'boom' });
    expect(
      await attemptEffect(
        withExecute(() => Promise.reject(new Error('later'))),
        effect,
        context,
      ),
    ).toEqual({ ok: false, error: 'later' });
    expect(
      await attemptEffect(
        withExecute(() => Promise.reject(42)),
        effect,
        context,
      ),
    ).toEqual({ ok: false, error: '42' });
    const none = await attemptEffect(
      defineReactor({ name: 'r', react: () => [] }),
      effect,
      context,
    );
    expect(none.ok).toBe(false);
  });

  it('escapes control characters and bounds the message', async () => {
    const outcome = await attemptEffect(
      withExecute(() => {
        throw new Error(`\u001b[2J${'x'.repeat(5000)}`);
      }),
      effect,
      context,
    );
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.startsWith('\\u001b[2J')).toBe(true);
      expect(outcome.error).toHaveLength(MAX_ERROR_LENGTH);
    }
  });
});

describe('in flight and idempotency keys', () => {
  it('holds at most the limit and wakes a waiter on release', async () => {
    const limit = new InFlightLimit();
    expect(limit.limit).toBe(MAX_IN_FLIGHT);
    for (let i = 0; i < MAX_IN_FLIGHT; i += 1) expect(limit.tryAcquire()).toBe(true);
    expect(limit.tryAcquire()).toBe(false);
    let woken = false;
    const waiting = limit.whenAvailable().then(() => {
      woken = true;
    });
    await Promise.resolve();
    expect(woken).toBe(false);
    limit.release();
    await waiting;
    expect(woken).toBe(true);
    expect(limit.tryAcquire()).toBe(true);
  });

  it('keys an effect by reactor, position and index', () => {
    expect(idempotencyKeyOf('crm', 42, 3)).toBe('crm:42:3');
  });
});
