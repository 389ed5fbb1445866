/**
 * The report's figures computed again from the raw NDJSON, without any of
 * the report's or the core's code: the rules are written out here from the
 * service interface (first sign-request-sent wins, the first final event
 * wins, participants only move forward, deleted requests left out, events
 * of another company or after a final event rejected).
 */

const TYPES = new Set([
  'template-activated',
  'template-inactivated',
  'template-deleted',
  'sign-request-sent',
  'sign-request-completed',
  'sign-request-declined',
  'sign-request-deleted',
  'participant-sent',
  'participant-viewed',
  'participant-downloaded',
  'participant-signed',
  'participant-declined',
]);
const STAGE: Record<string, number> = {
  'participant-sent': 0,
  'participant-viewed': 1,
  'participant-signed': 2,
  'participant-declined': 2,
};

export interface Participant {
  stage: number;
  status: string;
  since: number | undefined;
}

export interface Req {
  id: number;
  companyId: number;
  templateId: number | undefined;
  senderId: number | undefined;
  ownerId: number | undefined;
  sentAt: number | undefined;
  status: 'sent' | 'completed' | 'declined';
  finalAt: number | undefined;
  lastActivity: number | undefined;
  deleted: boolean;
  sentSeen: boolean;
  participants: Map<number, Participant>;
}

export interface Independent {
  readonly requests: Map<number, Req>;
  readonly latest: number | undefined;
  /** First and last receivedAt of decoded events. */
  readonly first: number | undefined;
}

const isInt = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** Whether the service interface accepts the event (a rough decoder: what the logs here need). */
const valid = (e: Record<string, unknown>): boolean => {
  if (typeof e.type !== 'string' || !TYPES.has(e.type) || !isInt(e.companyId)) return false;
  if (e.type.startsWith('template-')) return isInt(e.templateId);
  if (!isInt(e.signRequestId)) return false;
  // The service interface's table of members by event type: no template members here.
  const noTemplate = /^(sign-request-(declined|deleted)|participant-(viewed|downloaded|declined))$/;
  if (noTemplate.test(e.type) && ('templateId' in e || 'templateName' in e)) return false;
  if (e.type.startsWith('participant-')) {
    if (!isInt(e.participantId) || !isInt(e.roleId)) return false;
    if ('partcipantName' in e && 'participantName' in e && e.partcipantName !== e.participantName)
      return false;
  }
  return true;
};

/** Folds the lines of a log (envelopes and bare lines; bad lines skipped). */
export const independent = (lines: readonly string[]): Independent => {
  const requests = new Map<number, Req>();
  let latest: number | undefined;
  let first: number | undefined;
  for (const line of lines) {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const enveloped = typeof value.position === 'number' && 'event' in value;
    const e = (enveloped ? value.event : value) as Record<string, unknown>;
    if (e === null || typeof e !== 'object' || !valid(e)) continue;
    const at =
      enveloped && typeof value.receivedAt === 'string' ? Date.parse(value.receivedAt) : undefined;
    if (at !== undefined) {
      latest = latest === undefined ? at : Math.max(latest, at);
      first = first === undefined ? at : Math.min(first, at);
    }
    if (!isInt(e.signRequestId)) continue;
    const id = e.signRequestId;
    let r = requests.get(id);
    if (r !== undefined && at !== undefined) r.lastActivity = Math.max(r.lastActivity ?? at, at);
    if (r !== undefined && (r.deleted || r.companyId !== e.companyId)) continue;
    const type = e.type as string;
    if (r === undefined) {
      r = {
        id,
        companyId: e.companyId as number,
        templateId: e.templateId as number | undefined,
        senderId: e.senderId as number | undefined,
        ownerId: e.ownerId as number | undefined,
        sentAt: type === 'sign-request-sent' ? at : undefined,
        status: 'sent',
        finalAt: undefined,
        lastActivity: at,
        deleted: false,
        sentSeen: false,
        participants: new Map(),
      };
      requests.set(id, r);
      // Sent when its first sign-request-sent arrived, else when it was first heard of.
      r.sentAt = at;
    }
    if (type === 'sign-request-sent') {
      if (e.templateId !== r.templateId) continue;
      if (!r.sentSeen) r.sentAt = at;
      r.sentSeen = true;
    } else if (type === 'sign-request-completed' || type === 'sign-request-declined') {
      if (r.status === 'sent') {
        r.status = type === 'sign-request-completed' ? 'completed' : 'declined';
        r.finalAt = at;
      }
    } else if (type === 'sign-request-deleted') {
      r.deleted = true;
    } else if (type in STAGE && r.status === 'sent') {
      const pid = e.participantId as number;
      const stage = STAGE[type] ?? 0;
      const p = r.participants.get(pid);
      if (p === undefined) {
        r.participants.set(pid, { stage, status: type.slice(12), since: at });
      } else if (stage > p.stage) {
        p.stage = stage;
        p.status = type.slice(12);
        p.since = at;
      }
    }
  }
  return { requests, latest, first };
};

/** The figures of some requests, as the page names them. */
export const figures = (rs: readonly Req[], latest: number, stuckAfterMs: number) => {
  const open = rs.filter((r) => r.status === 'sent');
  const completed = rs.filter((r) => r.status === 'completed').length;
  return {
    sent: rs.length,
    completed,
    declined: rs.filter((r) => r.status === 'declined').length,
    open: open.length,
    stuck: open.filter((r) => r.sentAt !== undefined && latest - r.sentAt > stuckAfterMs).length,
    completedOfSent: rs.length === 0 ? -1 : completed / rs.length,
  };
};

/** Every request still counted: not deleted. */
export const counted = (ind: Independent): Req[] =>
  [...ind.requests.values()].filter((r) => !r.deleted);
