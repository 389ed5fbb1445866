/**
 * `signfold inspect LOG --sign-request ID` (or `--database URL` in place of
 * `LOG`): one sign request as the log explains it: its projection, its
 * participants, and the timeline of every event that touched it with what
 * each did (applied, no-op, conflict kind).
 */

import { type SignRequestId, signRequestId } from '../../core/ids.js';
import { counted } from '../../core/plural.js';
import { listParticipants } from '../../core/projections/projection-state.js';
import type { SignRequestView } from '../../core/projections/records.js';
import { visibleText } from '../../core/visible-text.js';
import type { AuditEntry } from '../../engine/audit-trail.js';
import { createProjector, type Projector } from '../../engine/projector.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { INSPECT_COMMAND } from '../definitions/inspect.js';
import { eventSourceOf, sourceLabel } from '../sources/event-source.js';
import { replaySource } from '../sources/replay-source.js';
import { formatTable } from '../table.js';
import { upcastersOf } from '../upcaster-module.js';

/** `5031 Ada Lovelace`, or `-` when unknown. */
const named = (id: number | null | undefined, name: string | undefined): string =>
  id === undefined || id === null ? '-' : name === undefined ? String(id) : `${id} ${name}`;

const describeRequest = (view: SignRequestView): string[] => [
  `Sign request ${view.id}: ${view.name}`,
  `  status    ${view.status}`,
  `  deleted   ${view.deleted ? 'yes' : 'no'}`,
  `  company   ${view.companyId ?? '-'}`,
  `  template  ${named(view.templateId, view.templateName)}`,
  `  sender    ${named(view.senderId, view.senderName)}`,
  `  owner     ${named(view.ownerId, view.ownerName)}`,
];

const describeParticipants = (projector: Projector, id: SignRequestId): string[] => {
  const participants = [...listParticipants(projector.state(), id)];
  const rows = participants.map((p) => [
    String(p.id),
    p.name,
    p.status,
    named(p.roleId, p.roleName),
    String(p.viewCount),
    String(p.downloadCount),
  ]);
  return [
    `Participants (${participants.length})`,
    ...(rows.length === 0
      ? ['  none']
      : formatTable(['ID', 'NAME', 'STATUS', 'ROLE', 'VIEWS', 'DOWNLOADS'], rows)),
  ];
};

const describeTimeline = (
  projector: Projector,
  id: SignRequestId,
  history: readonly AuditEntry[],
): string[] => {
  const rows = history.map((entry) => {
    const participant =
      entry.participantId === undefined
        ? undefined
        : projector.getParticipant(id, entry.participantId);
    return [
      String(entry.position),
      entry.receivedAt ?? '-',
      // An event upcasters made says so: the log holds another shape at that position.
      entry.upcastBy === undefined
        ? entry.type
        : `${entry.type} (upcast by ${visibleText(entry.upcastBy.join(', '))})`,
      named(entry.participantId, participant?.name),
      // Anything but applied / no-op is a conflict kind: say so, `deleted` alone reads like a status.
      entry.outcome === 'applied' || entry.outcome === 'no-op'
        ? entry.outcome
        : `conflict: ${entry.outcome}`,
    ];
  });
  // A repair (an observation record from `reconcile`) says which differences with the service it closed.
  const repairs = history.flatMap((entry) =>
    entry.type === 'observation' && (entry.differences?.length ?? 0) > 0
      ? [`  position ${entry.position}: ${(entry.differences ?? []).map(visibleText).join('; ')}`]
      : [],
  );
  return [
    `Timeline (${counted(history.length, 'event')})`,
    ...formatTable(['POSITION', 'RECEIVED AT', 'TYPE', 'PARTICIPANT', 'OUTCOME'], rows),
    ...(repairs.length === 0
      ? []
      : ['', 'Repairs (differences with the service they closed)', ...repairs]),
  ];
};

/**
 * Runs `inspect` with `args` (the words after `inspect`): exit 0 when the
 * sign request is found, 1 when the log never mentions it (like `grep`: the
 * question was well-formed, the answer is no), 2 on usage or I/O errors.
 */
export const inspectCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const parsed = parseCommand(INSPECT_COMMAND, args);
  const source = eventSourceOf(parsed);
  const { signRequest, until } = parsed.values;
  if (signRequest === undefined) throw usageError('missing --sign-request ID');
  const id = signRequestId(signRequest);
  // The audit trail is the point of inspect; skip so the timeline shows conflicts too.
  const upcasters = await upcastersOf(parsed.values.upcasters, 'inspect');
  const projector = createProjector({ audit: true, policy: 'skip', upcasters });
  await replaySource(projector, source, io, 'inspect', until);
  const view = projector.getSignRequest(id);
  const history = projector.signRequestHistory(id);
  if (view === undefined && history.length === 0) {
    const upTo = until === undefined ? '' : ` up to position ${until}`;
    throw new CliError(`sign request ${id} does not appear in ${sourceLabel(source)}${upTo}`, {
      exitCode: EXIT.findings,
    });
  }
  const head =
    view === undefined
      ? [`Sign request ${id}: not in the projections (every event about it was refused)`]
      : describeRequest(view);
  writeLines(io.stdout, [
    ...head,
    '',
    ...describeParticipants(projector, id),
    '',
    ...describeTimeline(projector, id, history),
  ]);
  return EXIT.ok;
};
