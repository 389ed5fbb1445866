/**
 * What the emulator's tests deliver to and compare with: a receiver that no part of signfold
 * wrote (a plain `node:http` server verifying with the `standardwebhooks` package), and the
 * comparison of a replay's records with what the emulator's read API answers.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:PORT/webhooks` */
  readonly url: string;
  /** Bodies that verified, in arrival order, with their `webhook-id`. */
  readonly verified: { readonly id: string; readonly body: string }[];
  /** Deliveries that did not verify (their reasons). */
  readonly refused: string[];
  close(): Promise<void>;
}

/** Starts a Standard Webhooks receiver for `secret` (`whsec_…`) on 127.0.0.1 and a free port. */
export const startStandardReceiver = async (secret: string): Promise<Receiver> => {
  const webhook = new Webhook(secret);
  const verified: { id: string; body: string }[] = [];
  const refused: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      try {
        webhook.verify(body, headers);
        verified.push({ id: headers['webhook-id'] ?? '', body });
        response.writeHead(204).end();
      } catch (cause) {
        refused.push(cause instanceof Error ? cause.message : String(cause));
        response.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    verified,
    refused,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

interface ReplayedRequest {
  readonly id: number;
  readonly status: string;
  readonly deleted: boolean;
}
interface ReplayedParticipant {
  readonly signRequestId: number;
  readonly id: number;
  readonly status: string;
}

/** What `signfold replay --json` prints, in the parts compared here. */
export interface ReplayJson {
  readonly signRequests: readonly ReplayedRequest[];
  readonly participants: readonly ReplayedParticipant[];
  readonly stats: { readonly conflicts: number; readonly invalid: number };
}

/**
 * Every way the replayed records differ from the API's answers (empty: they agree): each
 * request the API holds and each of its participants with a status, against the replay; each
 * participant the replay knows of a request the API holds, against the API.
 */
export const apiDifferences = (
  replayed: ReplayJson,
  api: readonly Record<string, unknown>[],
): string[] => {
  const found: string[] = [];
  const requests = new Map(replayed.signRequests.map((r) => [r.id, r]));
  const participants = new Map(
    replayed.participants.map((p) => [`${p.signRequestId}/${p.id}`, p.status]),
  );
  for (const answer of api) {
    const id = Number(answer.id);
    const request = requests.get(id);
    if (request === undefined || request.deleted) {
      found.push(`request ${id}: ${request === undefined ? 'not replayed' : 'deleted'}`);
      continue;
    }
    if (request.status !== String(answer.status).toLowerCase()) {
      found.push(`request ${id}: ${request.status} ≠ ${String(answer.status)}`);
    }
    const listed = (answer.participants ?? []) as { id: number; status?: string }[];
    for (const p of listed) {
      const replayedStatus = participants.get(`${id}/${p.id}`);
      if (p.status === undefined) {
        if (replayedStatus !== undefined) found.push(`participant ${id}/${p.id}: not yet sent`);
      } else if (replayedStatus !== p.status.toLowerCase()) {
        found.push(`participant ${id}/${p.id}: ${replayedStatus} ≠ ${p.status}`);
      }
    }
    for (const [key] of participants) {
      const [of, who] = key.split('/').map(Number);
      if (of === id && !listed.some((p) => p.id === who)) {
        found.push(`participant ${key}: unknown to the API`);
      }
    }
  }
  return found;
};
