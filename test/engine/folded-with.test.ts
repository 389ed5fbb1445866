/**
 * A snapshot records what its fold was made with, and a projector that folds
 * otherwise refuses it (`snapshot-stale`) instead of keeping the quarantine
 * and state of other rules.
 */
import { describe, expect, it } from 'vitest';
import {
  defineUpcaster,
  type Upcaster,
  upcasterFingerprint,
} from '../../src/core/upcasters/index.js';
import {
  createProjector,
  FOLD_RULES_VERSION,
  restoreProjector,
  type Snapshot,
  takeSnapshot,
} from '../../src/index.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import { requestEvent } from '../cli/cli-helpers.js';

const expiredAsDeclined = (to = 'sign-request-declined'): Upcaster =>
  defineUpcaster({
    name: 'expired-as-declined',
    from: 'sign-request-expired',
    to: ({ templateId: _t, templateName: _n, ...rest }) => ({ ...rest, type: to }),
  });

const logWithExpired = async () => {
  const log = createMemoryEventLog();
  await log.append(requestEvent('sign-request-sent', 1000, true));
  await log.append(requestEvent('sign-request-expired', 1000, true));
  return log;
};

/** A snapshot as a file would give it back: plain JSON. */
const snapshotOf = async (upcasters: readonly Upcaster[] = [], strict = false) => {
  const projector = createProjector({ upcasters, strict });
  await projector.replay(await logWithExpired());
  return JSON.parse(JSON.stringify(takeSnapshot(projector))) as Snapshot;
};

describe('what a snapshot was folded with', () => {
  it('records the fold rules, the decoding mode and each upcaster by name and code', async () => {
    const upcaster = expiredAsDeclined();
    const snapshot = await snapshotOf([upcaster]);
    expect(snapshot.foldedWith).toEqual({
      rules: FOLD_RULES_VERSION,
      strict: false,
      upcasters: [
        { name: 'expired-as-declined', source: expect.stringMatching(/^fnv1a32:[0-9a-f]{8}$/) },
      ],
    });
    expect(upcasterFingerprint(upcaster)).toEqual(snapshot.foldedWith.upcasters[0]);
    expect(restoreProjector(snapshot, { upcasters: [upcaster] }).isOk()).toBe(true);
  });

  it('is refused by a projector with an upcaster the snapshot lacked, instead of keeping the old quarantine', async () => {
    const snapshot = await snapshotOf();
    expect(snapshot.quarantine.map((q) => q.position)).toEqual([2]);
    const refused = restoreProjector(snapshot, { upcasters: [expiredAsDeclined()] });
    expect(refused._unsafeUnwrapErr()).toEqual({
      kind: 'snapshot-stale',
      message:
        'snapshot was folded with no upcasters, not "expired-as-declined"; this projector folds with fold rules 1, lenient decoding, upcasters "expired-as-declined": replay the log from the start (without the snapshot) and take a new one',
    });
    // Replayed from the start instead, the event is applied.
    const projector = createProjector({ upcasters: [expiredAsDeclined()] });
    await projector.replay(await logWithExpired());
    expect(projector.quarantine()).toEqual([]);
  });

  it.each([
    [
      'without the upcaster',
      () => ({}),
      /folded with upcasters "expired-as-declined", not no upcasters;/,
    ],
    [
      'with the upcaster changed under the same name',
      () => ({
        upcasters: [
          defineUpcaster({
            name: 'expired-as-declined',
            from: 'sign-request-expired',
            to: ({ templateId: _t, templateName: _n, ...rest }) => ({
              ...rest,
              type: 'sign-request-completed',
            }),
          }),
        ],
      }),
      /folded with upcaster "expired-as-declined" as its code was then;/,
    ],
    [
      'with strict decoding',
      () => ({ upcasters: [expiredAsDeclined()], strict: true }),
      /folded with lenient decoding; this projector folds with fold rules 1, strict decoding,/,
    ],
  ])('is refused %s', async (_what, options, message) => {
    const snapshot = await snapshotOf([expiredAsDeclined()]);
    const refused = restoreProjector(snapshot, options())._unsafeUnwrapErr();
    expect(refused.kind).toBe('snapshot-stale');
    expect(refused.message).toMatch(message);
  });

  it('is refused when made under other fold rules', async () => {
    const snapshot = await snapshotOf();
    const older = { ...snapshot, foldedWith: { ...snapshot.foldedWith, rules: 0 } };
    expect(restoreProjector(older)._unsafeUnwrapErr().message).toMatch(
      /^snapshot was folded with fold rules 0, not 1;/,
    );
  });

  it('reads a version 3 snapshot as folded with no upcasters and lenient decoding', async () => {
    const { foldedWith: _f, ...rest } = await snapshotOf();
    const version3 = { ...rest, version: 3 };
    expect(restoreProjector(version3).isOk()).toBe(true);
    expect(
      restoreProjector(version3, { upcasters: [expiredAsDeclined()] })._unsafeUnwrapErr().kind,
    ).toBe('snapshot-stale');
    expect(restoreProjector(version3, { strict: true })._unsafeUnwrapErr().kind).toBe(
      'snapshot-stale',
    );
  });

  it.each([
    [
      'missing in version 4',
      (s: Snapshot) => ({ ...s, foldedWith: undefined }),
      'snapshot "foldedWith" is missing',
    ],
    [
      'with a bad upcaster entry',
      (s: Snapshot) => ({ ...s, foldedWith: { ...s.foldedWith, upcasters: [{ name: 1 }] } }),
      'snapshot foldedWith.upcasters is missing or invalid',
    ],
    [
      'with rules that are not a count',
      (s: Snapshot) => ({ ...s, foldedWith: { ...s.foldedWith, rules: '1' } }),
      'snapshot foldedWith.rules is missing or invalid',
    ],
  ])('refuses a foldedWith %s as invalid', async (_what, damage, message) => {
    const refused = restoreProjector(damage(await snapshotOf()))._unsafeUnwrapErr();
    expect(refused).toEqual({ kind: 'snapshot-invalid', message });
  });
});
