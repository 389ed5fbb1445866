/**
 * What the emulated service answers about its records: the §2.1
 * representation of a sign request as it holds it now, and its truth (every
 * request's and participant's status), read from the projection of its own
 * events plus what only the service knows (roles, fields, field data).
 */
import { participantId, signRequestId } from '../core/ids.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import type { StoryRequest } from './story.js';

// A 1×1 PNG: the §2.4 image of a signature, kept tiny so representations stay small.
const SIGNATURE_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** `YYYY-MM-DD HH:MM:SS` in UTC: the service interface gives `savedTime` no zone, so the service uses UTC. */
export const savedTimeOf = (at: number): string =>
  new Date(at).toISOString().slice(0, 19).replace('T', ' ');

/** A participant as the service knows it; `status` is `null` until it was sent the request. */
export interface TruthParticipant {
  readonly id: number;
  readonly status: 'sent' | 'viewed' | 'signed' | 'declined' | null;
}

/** A sign request as the service knows it. */
export interface TruthSignRequest {
  readonly id: number;
  readonly companyId: number;
  readonly status: 'draft' | 'sent' | 'completed' | 'declined';
  readonly deleted: boolean;
  readonly participants: readonly TruthParticipant[];
}

/** A template as the service knows it. */
export interface TruthTemplate {
  readonly id: number;
  readonly companyId: number;
  readonly status: 'active' | 'inactive' | 'deleted';
}

/** Everything the service knows. */
export interface ServiceTruth {
  readonly templates: readonly TruthTemplate[];
  readonly signRequests: readonly TruthSignRequest[];
}

/** The service's truth at `state`. */
export const truthOf = (
  state: ProjectionState,
  requests: readonly StoryRequest[],
): ServiceTruth => ({
  templates: [...state.templates.values()].map((t) => ({
    id: t.id,
    companyId: t.companyId,
    status: t.status,
  })),
  signRequests: requests.flatMap((request) => {
    const view = state.signRequests.get(signRequestId(request.id));
    if (view === undefined) return [];
    const known = state.participants.get(view.id);
    return [
      {
        id: request.id,
        companyId: request.companyId,
        status: view.status,
        deleted: view.deleted,
        participants: request.participants.map((p) => ({
          id: p.id,
          status: known?.get(participantId(p.id))?.status ?? null,
        })),
      },
    ];
  }),
});

/** The §2.1 representation of a request now, or `undefined` when unknown or deleted. */
export const representationOf = (
  state: ProjectionState,
  request: StoryRequest | undefined,
  savedAt: number,
): Record<string, unknown> | undefined => {
  if (request === undefined) return undefined;
  const view = state.signRequests.get(signRequestId(request.id));
  if (view === undefined || view.deleted) return undefined;
  const known = state.participants.get(view.id);
  return {
    id: request.id,
    name: view.name,
    status: view.status,
    formType: request.formType,
    participants: request.participants.map((p) => {
      const status = known?.get(participantId(p.id))?.status;
      return {
        id: p.id,
        name: p.name,
        email: p.email,
        // The service interface lists no status for someone the request was not sent to yet.
        ...(status === undefined ? {} : { status }),
        role: { id: p.role.id, name: p.role.name, sequence: p.role.sequence },
        fieldData: p.fieldData.map((data) => ({
          id: data.id,
          fieldId: data.fieldId,
          imageContent: SIGNATURE_PNG,
          imageMimetype: 'image/png',
        })),
      };
    }),
    savedTime: savedTimeOf(savedAt),
    fields: request.fields.map((field) => ({
      id: field.id,
      roleId: field.roleId,
      required: true,
      isMasked: false,
      type: 'signature',
    })),
  };
};
