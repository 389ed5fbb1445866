/**
 * The lock verdict on a system without Linux's `/proc` (macOS, the BSDs,
 * Windows), simulated by hiding this process's identity: a lock is then of
 * this pid namespace when it records this host name and no identity, and its
 * holder is judged by pid alone (a reused pid looks alive: kept, never broken).
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Observed } from '../../src/store/lock-content.js';
import type { judgeLock as JudgeLock } from '../../src/store/lock-verdict.js';

const LIVENESS = '../../src/store/process-liveness.js';
let judgeLock: typeof JudgeLock;

// Workers run files one after another in one module registry (vitest.config.ts): the mock is
// made for this file's fresh copy of the lock verdict only, and taken back after it.
beforeAll(async () => {
  vi.resetModules();
  vi.doMock(LIVENESS, async (original) => ({
    ...(await original<typeof import('../../src/store/process-liveness.js')>()),
    ownIdentity: () => undefined,
    bootTimeMs: () => undefined,
  }));
  ({ judgeLock } = await import('../../src/store/lock-verdict.js'));
});
afterAll(() => {
  vi.doUnmock(LIVENESS);
  vi.resetModules();
});

const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid ?? 0;

const seen = (content: Record<string, unknown>, ageMs = 0): Observed => {
  const full = { host: hostname(), since: '2026-01-02T03:04:05.000Z', token: 'beef', ...content };
  return { content: full as Observed['content'], text: JSON.stringify(full), ageMs };
};

describe('lock verdict without /proc', () => {
  it('judges a lock of this host name without identity by its pid', () => {
    expect(judgeLock(seen({ pid: deadPid() })).kind).toBe('gone');
    expect(judgeLock(seen({ pid: process.ppid }, 86_400_000)).kind).toBe('running');
    expect(judgeLock(seen({ pid: process.pid })).kind).toBe('gone');
  });

  it('treats locks of another host name, or recording a /proc identity, as from elsewhere', () => {
    expect(judgeLock(seen({ pid: deadPid(), host: 'elsewhere.example' })).kind).toBe('elsewhere');
    const linux = { bootId: 'b', pidNamespace: 'pid:[4026531836]', startTime: '5' };
    expect(judgeLock(seen({ pid: deadPid(), ...linux })).kind).toBe('elsewhere');
  });
});
