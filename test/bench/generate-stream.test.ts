import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  envelopes,
  type GenerateStats,
  generateEvents,
  templateCatalog,
  type WireEvent,
  writeNdjson,
} from '../../bench/generate-stream.js';
import {
  EVENT_MEMBERS,
  isEventType,
  MEMBER_KINDS,
  type MemberName,
  WIRE_PARTICIPANT_NAME,
} from '../../src/core/events/event-members.js';

const wireName = (member: MemberName): string =>
  member === 'participantName' ? WIRE_PARTICIPANT_NAME : member;

const generate = (options: Parameters<typeof generateEvents>[0]): WireEvent[] => [
  ...generateEvents(options),
];

const num = (e: WireEvent, member: string): number => e[member] as number;

/**
 * Strict decoding as the wire format requires: known type, exactly the members of
 * its type (participant name in either spelling, not both with different values),
 * ids safe integers, names strings. Returns the reason the event is malformed, or null.
 */
const malformation = (value: unknown): string | null => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not-an-object';
  const e = value as Record<string, unknown>;
  if (typeof e.type !== 'string' || !isEventType(e.type)) return 'unknown-type';
  const expected = new Set<string>(['type', ...EVENT_MEMBERS[e.type]]);
  const keys = Object.keys(e).map((k) => (k === WIRE_PARTICIPANT_NAME ? 'participantName' : k));
  if (keys.length !== new Set(keys).size) {
    return e.participantName === e[WIRE_PARTICIPANT_NAME] ? null : 'conflicting-spelling';
  }
  for (const k of keys) if (!expected.has(k)) return `member-not-allowed ${k}`;
  for (const k of expected) if (!keys.includes(k)) return `missing-member ${k}`;
  for (const [k, v] of Object.entries(e)) {
    if (k === 'type') continue;
    const kind = MEMBER_KINDS[(k === WIRE_PARTICIPANT_NAME ? 'participantName' : k) as MemberName];
    if (kind === 'id' ? !Number.isSafeInteger(v) : typeof v !== 'string') return `wrong-type ${k}`;
  }
  return null;
};

type RequestStatus = 'draft' | 'sent' | 'completed' | 'declined';
type ParticipantStatus = 'sent' | 'viewed' | 'signed' | 'declined';

/**
 * A small reference model of the status rules (see the brief of the library): feeds
 * events one at a time and returns a reason for each conflict, or null when the
 * event applies or is a no-op. Conflicting events are not applied.
 */
const conflictChecker = () => {
  const templates = new Map<number, { companyId: number; status: string }>();
  const requests = new Map<
    number,
    {
      companyId: number;
      templateId: number | undefined;
      status: RequestStatus;
      deleted: boolean;
      participants: Map<number, { roleId: number; status: ParticipantStatus | undefined }>;
    }
  >();
  return (e: WireEvent): string | null => {
    const type = e.type;
    const companyId = num(e, 'companyId');
    if (type.startsWith('template-')) {
      const id = num(e, 'templateId');
      const t = templates.get(id);
      if (t !== undefined && t.companyId !== companyId) return 'company mismatch';
      if (t?.status === 'deleted' && type !== 'template-deleted') return 'template deleted';
      templates.set(id, { companyId, status: type.slice('template-'.length) });
      return null;
    }
    const id = num(e, 'signRequestId');
    let r = requests.get(id);
    if (r !== undefined && r.companyId !== companyId) return 'company mismatch';
    const templateId = e.templateId as number | undefined;
    if (r?.templateId !== undefined && templateId !== undefined && templateId !== r.templateId) {
      return 'templateId changed';
    }
    if (r?.deleted) return type === 'sign-request-deleted' ? null : 'request deleted';
    const status: RequestStatus = r?.status ?? 'draft';
    const final = status === 'completed' || status === 'declined';
    let next = status;
    let participant: { roleId: number; status: ParticipantStatus | undefined } | undefined;
    let nextParticipant: ParticipantStatus | undefined;
    switch (type) {
      case 'sign-request-sent':
        if (final) return `sent after ${status}`;
        next = 'sent';
        break;
      case 'sign-request-completed':
        if (status === 'declined') return 'completed after declined';
        next = 'completed';
        break;
      case 'sign-request-declined':
        if (status === 'completed') return 'declined after completed';
        next = 'declined';
        break;
      case 'sign-request-deleted':
        break;
      default: {
        if (status === 'draft') next = 'sent';
        const pid = num(e, 'participantId');
        participant = r?.participants.get(pid);
        const roleId = num(e, 'roleId');
        if (participant !== undefined && participant.roleId !== roleId) return 'roleId changed';
        const ps = participant?.status;
        nextParticipant = ps;
        switch (type) {
          case 'participant-sent':
            if (final) return `participant-sent on ${status} request`;
            if (ps === 'signed' || ps === 'declined') return `participant-sent after ${ps}`;
            nextParticipant = ps ?? 'sent';
            break;
          case 'participant-viewed':
            if (ps === undefined || ps === 'sent') nextParticipant = 'viewed';
            break;
          case 'participant-downloaded':
            nextParticipant = ps ?? 'sent';
            break;
          case 'participant-signed':
            if (status === 'declined') return 'participant-signed on declined request';
            if (ps === 'declined') return 'signed after declined';
            nextParticipant = 'signed';
            break;
          case 'participant-declined':
            if (status === 'completed') return 'participant-declined on completed request';
            if (ps === 'signed') return 'declined after signed';
            nextParticipant = 'declined';
            break;
          default:
            return `unexpected type ${type}`;
        }
      }
    }
    if (r === undefined) {
      r = { companyId, templateId, status: next, deleted: false, participants: new Map() };
      requests.set(id, r);
    }
    r.status = next;
    if (r.templateId === undefined) r.templateId = templateId;
    if (type === 'sign-request-deleted') r.deleted = true;
    if (type.startsWith('participant-')) {
      r.participants.set(num(e, 'participantId'), {
        roleId: num(e, 'roleId'),
        status: nextParticipant,
      });
    }
    return null;
  };
};

const STREAM = { seed: 42, signRequests: 3000 } as const;

describe('generateEvents', () => {
  it('is deterministic: the same seed gives the same events, another seed others', () => {
    const a = generate(STREAM);
    const b = generate(STREAM);
    expect(b).toEqual(a);
    expect(JSON.stringify(generate({ ...STREAM, seed: 43 }))).not.toBe(JSON.stringify(a));
  });

  it('yields exactly the members of each type, participant name spelled partcipantName', () => {
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const e of generateEvents(STREAM)) {
      if (!isEventType(e.type)) {
        problems.push(`unknown type ${e.type}`);
        continue;
      }
      seen.add(e.type);
      const expected = ['type', ...EVENT_MEMBERS[e.type].map(wireName)].sort().join();
      if (Object.keys(e).sort().join() !== expected) problems.push(`members: ${JSON.stringify(e)}`);
      const bad = malformation(e);
      if (bad !== null) problems.push(`${bad}: ${JSON.stringify(e)}`);
      for (const member of EVENT_MEMBERS[e.type]) {
        const value = e[wireName(member)];
        const ok =
          MEMBER_KINDS[member] === 'id'
            ? Number.isSafeInteger(value) && (value as number) > 0
            : typeof value === 'string' && value.length > 0;
        if (!ok) problems.push(`${member}: ${JSON.stringify(e)}`);
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expect([...seen].sort()).toEqual(Object.keys(EVENT_MEMBERS).sort());
  });

  it('keeps ids and companies consistent', () => {
    const companies = 3;
    const templatesPerCompany = 2;
    const catalog = templateCatalog({ seed: 42, companies, templatesPerCompany });
    const templateCompany = new Map(
      catalog.flatMap((c) => c.templates.map((t) => [t.id, c.id] as const)),
    );
    const roleTemplate = new Map(
      catalog.flatMap((c) => c.templates.flatMap((t) => t.roles.map((r) => [r.id, t.id] as const))),
    );
    const requestCompany = new Map<number, number>();
    const requestTemplate = new Map<number, number>();
    const participantRequest = new Map<number, number>();
    const participantRole = new Map<number, number>();
    const participantsOf = new Map<number, Set<number>>();
    const problems: string[] = [];
    /** Records `value` for `key`, noting a problem if `key` had another value. */
    const same = (
      map: Map<number, number>,
      key: number,
      value: number | undefined,
      what: string,
    ) => {
      const known = map.get(key);
      if (value === undefined) return;
      if (known !== undefined && known !== value)
        problems.push(`${what} ${key}: ${known} → ${value}`);
      map.set(key, value);
    };
    for (const e of generateEvents({ ...STREAM, companies, templatesPerCompany })) {
      const companyId = num(e, 'companyId');
      if (!(companyId >= 1 && companyId <= companies)) problems.push(`company ${companyId}`);
      if (e.templateId !== undefined && templateCompany.get(num(e, 'templateId')) !== companyId) {
        problems.push(`template of another company: ${JSON.stringify(e)}`);
      }
      if (e.signRequestId === undefined) continue;
      const id = num(e, 'signRequestId');
      if (!requestCompany.has(id) && e.type !== 'sign-request-sent') {
        problems.push(`request ${id} starts with ${e.type}`);
      }
      same(requestCompany, id, companyId, 'company of request');
      same(requestTemplate, id, e.templateId as number | undefined, 'template of request');
      if (e.participantId === undefined) continue;
      const pid = num(e, 'participantId');
      same(participantRequest, pid, id, 'request of participant');
      same(participantRole, pid, num(e, 'roleId'), 'role of participant');
      if (roleTemplate.get(num(e, 'roleId')) !== requestTemplate.get(id)) {
        problems.push(`role of another template: ${JSON.stringify(e)}`);
      }
      participantsOf.set(id, (participantsOf.get(id) ?? new Set()).add(pid));
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expect(requestCompany.size).toBe(STREAM.signRequests);
    expect(new Set(requestCompany.values()).size).toBe(companies);
    const sizes = new Set([...participantsOf.values()].map((ps) => ps.size));
    expect([...sizes].every((n) => n >= 1 && n <= 3)).toBe(true);
    expect(sizes.has(2) && sizes.has(3)).toBe(true);
  });

  it('interleaves many sign requests and has realistic outcomes and sizes', () => {
    const stats: GenerateStats = {
      events: 0,
      duplicates: 0,
      reorders: 0,
      signRequests: 0,
      byType: {},
    };
    const open = new Set<number>();
    let maxOpen = 0;
    let bytes = 0;
    let count = 0;
    for (const e of generateEvents({ ...STREAM, stats })) {
      count++;
      bytes += Buffer.byteLength(JSON.stringify(e));
      if (e.signRequestId === undefined) continue;
      const id = num(e, 'signRequestId');
      if (e.type === 'sign-request-sent') open.add(id);
      if (e.type === 'sign-request-completed' || e.type === 'sign-request-declined') {
        open.delete(id);
      }
      maxOpen = Math.max(maxOpen, open.size);
    }
    expect(maxOpen).toBeGreaterThan(50);
    expect(stats.events).toBe(count);
    expect(stats.signRequests).toBe(STREAM.signRequests);
    const by = stats.byType;
    const completed = by['sign-request-completed'] ?? 0;
    const declined = by['sign-request-declined'] ?? 0;
    expect(completed).toBeGreaterThan(0.8 * STREAM.signRequests);
    expect(declined).toBeGreaterThan(0.03 * STREAM.signRequests);
    expect(by['sign-request-deleted'] ?? 0).toBeGreaterThan(0);
    expect(by['template-inactivated'] ?? 0).toBeGreaterThan(0);
    expect(bytes / count).toBeGreaterThan(250);
    expect(bytes / count).toBeLessThan(350);
  });

  it('produces a conflict-free stream under the status rules, duplicates and reorders included', () => {
    for (const seed of [1, 2, 3]) {
      const check = conflictChecker();
      const conflicts: string[] = [];
      for (const e of generateEvents({
        seed,
        signRequests: 2000,
        duplicateRate: 0.1,
        reorderRate: 0.1,
      })) {
        const reason = check(e);
        if (reason !== null) conflicts.push(`${reason}: ${JSON.stringify(e)}`);
      }
      expect(conflicts).toEqual([]);
    }
  });

  it('keeps `concurrent` requests open at once, conflict-free and deterministic', () => {
    const openCounts = (signRequests: number, concurrent: number) => {
      const open = new Set<number>();
      const finished = new Set<number>();
      let peak = 0;
      let switches = 0;
      let previous: number | undefined;
      const check = conflictChecker();
      // No reorders: a swapped neighbour could open the next request just before one finishes.
      for (const e of generateEvents({ seed: 5, signRequests, concurrent, reorderRate: 0 })) {
        expect(check(e)).toBeNull();
        if (e.signRequestId === undefined) continue;
        const id = num(e, 'signRequestId');
        if (previous !== undefined && id !== previous) switches += 1;
        previous = id;
        if (/^sign-request-(completed|declined|deleted)$/.test(e.type)) {
          open.delete(id);
          finished.add(id);
        } else if (!finished.has(id)) open.add(id);
        peak = Math.max(peak, open.size);
      }
      return { peak, switches };
    };
    expect(openCounts(500, 500).peak).toBe(500);
    expect(openCounts(1000, 100).peak).toBe(100);
    // Grouped: one request at a time, so the request changes only between requests (and templates).
    expect(openCounts(300, 1).peak).toBe(1);
    expect(openCounts(300, 300).switches).toBeGreaterThan(openCounts(300, 1).switches * 5);
    expect(generate({ seed: 9, signRequests: 200, concurrent: 50 })).toEqual(
      generate({ seed: 9, signRequests: 200, concurrent: 50 }),
    );
    expect(() => generate({ seed: 9, signRequests: 2, concurrent: 0 })).toThrow(TypeError);
  });

  it('duplicates at roughly the requested rate, without changing the underlying flow', () => {
    for (const duplicateRate of [0.02, 0.05]) {
      const stats: GenerateStats = {
        events: 0,
        duplicates: 0,
        reorders: 0,
        signRequests: 0,
        byType: {},
      };
      const base = generate({ ...STREAM, duplicateRate: 0, reorderRate: 0 });
      const withDuplicates = generate({ ...STREAM, duplicateRate, reorderRate: 0, stats });
      expect(withDuplicates.length - base.length).toBe(stats.duplicates);
      const rate = stats.duplicates / base.length;
      expect(rate).toBeGreaterThan(duplicateRate * 0.8);
      expect(rate).toBeLessThan(duplicateRate * 1.2);
      // Dropping exact repeats of earlier events gives back at most the duplicates
      // (repeated views/downloads and template toggles are legitimately identical).
      const legitimateRepeat = /"(participant-viewed|participant-downloaded|template-[a-z]+)"/;
      const strict = (events: WireEvent[]) => {
        const seen = new Set<string>();
        return events
          .map((e) => JSON.stringify(e))
          .filter((s) => {
            const first = !seen.has(s);
            seen.add(s);
            return first || legitimateRepeat.test(s);
          });
      };
      const repeats = withDuplicates.length - strict(withDuplicates).length;
      expect(repeats).toBeLessThanOrEqual(stats.duplicates);
      expect(repeats).toBeGreaterThan(stats.duplicates * 0.4);
    }
    const none = generate({ ...STREAM, duplicateRate: 0, reorderRate: 0 }).map((e) =>
      JSON.stringify(e),
    );
    const nonViews = none.filter(
      (s) => !/"(participant-viewed|participant-downloaded|template-[a-z]+)"/.test(s),
    );
    expect(new Set(nonViews).size).toBe(nonViews.length);
  });
});

describe('envelopes and writeNdjson', () => {
  it('writes bare and envelope lines, deterministically', () => {
    const dir = mkdtempSync(join(tmpdir(), 'signfold-gen-'));
    try {
      const events = generate({ seed: 5, signRequests: 200 });
      const bare = join(dir, 'bare.ndjson');
      const wrapped = join(dir, 'envelope.ndjson');
      expect(writeNdjson(bare, events).lines).toBe(events.length);
      const bareLines = readFileSync(bare, 'utf8').split('\n');
      expect(bareLines.pop()).toBe('');
      expect(bareLines.map((l) => JSON.parse(l))).toEqual(events);

      const result = writeNdjson(wrapped, events, { envelope: true, startPosition: 10, seed: 9 });
      const text = readFileSync(wrapped, 'utf8');
      expect(result.bytes).toBe(Buffer.byteLength(text));
      const lines = text.trimEnd().split('\n');
      const expected = [...envelopes(events, { startPosition: 10, seed: 9 })];
      expect(lines).toEqual(expected.map((x) => JSON.stringify(x)));
      let previous = '';
      lines.forEach((line, i) => {
        const env = JSON.parse(line) as {
          position: number;
          receivedAt: string;
          deliveryId: string;
        };
        expect(env.position).toBe(10 + i);
        expect(new Date(env.receivedAt).toISOString()).toBe(env.receivedAt);
        expect(env.receivedAt >= previous).toBe(true);
        expect(env.deliveryId).toMatch(/^dlv-[0-9a-f]{16}$/);
        previous = env.receivedAt;
      });
      writeNdjson(join(dir, 'again.ndjson'), events, {
        envelope: true,
        startPosition: 10,
        seed: 9,
      });
      expect(readFileSync(join(dir, 'again.ndjson'), 'utf8')).toBe(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('examples/events.ndjson', () => {
  const root = new URL('../../', import.meta.url);
  const readme = readFileSync(new URL('examples/README.md', root), 'utf8');
  const listed = [...readme.matchAll(/^\| (\d+) +\| (malformed|conflict): ([a-z-]+) +\|/gm)].map(
    (m) => ({ position: Number(m[1]), kind: m[2], code: m[3] }),
  );

  it('has malformed lines and conflicts exactly where its README says', () => {
    expect(listed.filter((x) => x.kind === 'malformed').length).toBeGreaterThanOrEqual(5);
    expect(listed.filter((x) => x.kind === 'conflict').length).toBeGreaterThanOrEqual(5);
    const lines = readFileSync(new URL('examples/events.ndjson', root), 'utf8')
      .trimEnd()
      .split('\n');
    const check = conflictChecker();
    const found: { position: number; kind: string; reason: string }[] = [];
    lines.forEach((line, i) => {
      const position = i + 1;
      let env: { position: number; event: unknown };
      try {
        env = JSON.parse(line);
      } catch {
        found.push({ position, kind: 'malformed', reason: 'invalid-json' });
        return;
      }
      expect(env.position).toBe(position);
      const bad = malformation(env.event);
      if (bad !== null) {
        found.push({ position, kind: 'malformed', reason: bad });
        return;
      }
      const conflict = check(env.event as WireEvent);
      if (conflict !== null) found.push({ position, kind: 'conflict', reason: conflict });
    });
    expect(found.map((x) => `${x.position} ${x.kind}`)).toEqual(
      listed.map((x) => `${x.position} ${x.kind}`),
    );
  });

  it('has a sign-request.json consistent with the log', () => {
    const sr = JSON.parse(readFileSync(new URL('examples/sign-request.json', root), 'utf8')) as {
      id: number;
      name: string;
      status: string;
      savedTime: string;
      participants: { id: number; name: string; role: { id: number } }[];
      fields: { id: number; roleId: number }[];
    };
    expect(sr.status).toBe('Completed');
    expect(sr.savedTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const events = readFileSync(new URL('examples/events.ndjson', root), 'utf8')
      .trimEnd()
      .split('\n')
      .flatMap((l) => {
        try {
          return [(JSON.parse(l) as { event: WireEvent }).event];
        } catch {
          return [];
        }
      })
      .filter((e) => e.signRequestId === sr.id);
    expect(events.some((e) => e.type === 'sign-request-completed')).toBe(true);
    for (const p of sr.participants) {
      expect(
        events.some(
          (e) =>
            e.type === 'participant-signed' &&
            e.participantId === p.id &&
            e.partcipantName === p.name &&
            e.roleId === p.role.id,
        ),
      ).toBe(true);
    }
    expect(sr.fields.map((f) => f.roleId).sort()).toEqual(
      sr.participants.map((p) => p.role.id).sort(),
    );
  });
});
