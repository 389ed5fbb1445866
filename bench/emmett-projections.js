// The Emmett side of bench/emmett-live.js: three inline projections equivalent to signfold's three
// tables (templates, sign requests, participants), kept minimal: one SQL statement per event and
// projection, an upsert for the event that creates a row and a guarded UPDATE for the others
// (a status moves only from the state the event expects; views and downloads are counted). No
// conflict tracking, no quarantine, no per-partition template copies: less work than signfold's
// projector does per event, so the comparison does not flatter signfold.
import { plainString, SQL } from '@event-driven-io/dumbo';
import { postgreSQLRawSQLProjection } from '@event-driven-io/emmett-postgresql';

/** The projection tables, created before a run (in the run's own database). */
export const emmettProjectionTablesSql = `
CREATE TABLE bench_templates (
  id bigint PRIMARY KEY, company_id bigint NOT NULL, name text NOT NULL,
  owner_id bigint NOT NULL, owner_name text NOT NULL, status text NOT NULL
);
CREATE TABLE bench_sign_requests (
  id bigint PRIMARY KEY, company_id bigint, name text NOT NULL, status text NOT NULL,
  deleted boolean NOT NULL, owner_id bigint, owner_name text, sender_id bigint, sender_name text,
  template_id bigint, template_name text
);
CREATE TABLE bench_participants (
  sign_request_id bigint NOT NULL, id bigint NOT NULL, company_id bigint, name text NOT NULL,
  status text NOT NULL, view_count integer NOT NULL, download_count integer NOT NULL,
  role_id bigint, role_name text, PRIMARY KEY (sign_request_id, id)
);
CREATE INDEX bench_sign_requests_company_status ON bench_sign_requests (company_id, status);
CREATE INDEX bench_participants_awaiting ON bench_participants (company_id, sign_request_id)
  WHERE status IN ('sent', 'viewed');
`;

const templates = postgreSQLRawSQLProjection({
  name: 'bench_templates',
  canHandle: ['template-activated', 'template-inactivated', 'template-deleted'],
  evolve: ({ type, data: e }) => {
    if (type === 'template-activated') {
      return SQL`INSERT INTO bench_templates (id, company_id, name, owner_id, owner_name, status)
        VALUES (${e.templateId}, ${e.companyId}, ${e.templateName}, ${e.ownerId}, ${e.ownerName}, 'active')
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, owner_id = EXCLUDED.owner_id,
          owner_name = EXCLUDED.owner_name, status = 'active' WHERE bench_templates.status <> 'deleted'`;
    }
    const status = type === 'template-deleted' ? 'deleted' : 'inactive';
    return SQL`UPDATE bench_templates SET status = ${status}
      WHERE id = ${e.templateId} AND status <> 'deleted'`;
  },
});

const signRequests = postgreSQLRawSQLProjection({
  name: 'bench_sign_requests',
  canHandle: [
    'sign-request-sent',
    'sign-request-completed',
    'sign-request-declined',
    'sign-request-deleted',
  ],
  evolve: ({ type, data: e }) => {
    if (type === 'sign-request-sent') {
      return SQL`INSERT INTO bench_sign_requests (id, company_id, name, status, deleted, owner_id,
          owner_name, sender_id, sender_name, template_id, template_name)
        VALUES (${e.signRequestId}, ${e.companyId}, ${e.signRequestName}, 'sent', false, ${e.ownerId},
          ${e.ownerName}, ${e.senderId}, ${e.senderName}, ${e.templateId ?? null}, ${e.templateName ?? null})
        ON CONFLICT (id) DO NOTHING`;
    }
    if (type === 'sign-request-deleted') {
      return SQL`UPDATE bench_sign_requests SET deleted = true WHERE id = ${e.signRequestId}`;
    }
    const status = type === 'sign-request-completed' ? 'completed' : 'declined';
    return SQL`UPDATE bench_sign_requests SET status = ${status}
      WHERE id = ${e.signRequestId} AND status = 'sent'`;
  },
});

const participants = postgreSQLRawSQLProjection({
  name: 'bench_participants',
  canHandle: [
    'participant-sent',
    'participant-viewed',
    'participant-downloaded',
    'participant-signed',
    'participant-declined',
  ],
  evolve: ({ type, data: e }) => {
    const key = SQL`sign_request_id = ${e.signRequestId} AND id = ${e.participantId}`;
    switch (type) {
      case 'participant-sent':
        return SQL`INSERT INTO bench_participants (sign_request_id, id, company_id, name, status,
            view_count, download_count, role_id, role_name)
          VALUES (${e.signRequestId}, ${e.participantId}, ${e.companyId}, ${e.partcipantName}, 'sent',
            0, 0, ${e.roleId}, ${e.roleName})
          ON CONFLICT (sign_request_id, id) DO NOTHING`;
      case 'participant-viewed':
        return SQL`UPDATE bench_participants SET view_count = view_count + 1,
            status = CASE WHEN status = 'sent' THEN 'viewed' ELSE status END WHERE ${plainString(key)}`;
      case 'participant-downloaded':
        return SQL`UPDATE bench_participants SET download_count = download_count + 1 WHERE ${plainString(key)}`;
      default: {
        const status = type === 'participant-signed' ? 'signed' : 'declined';
        return SQL`UPDATE bench_participants SET status = ${status}
          WHERE ${plainString(key)} AND status IN ('sent', 'viewed')`;
      }
    }
  },
});

/** The three projections, for `projections.inline`. */
export const emmettProjections = [templates, signRequests, participants];
