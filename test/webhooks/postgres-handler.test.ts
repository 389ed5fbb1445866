/**
 * The handler on the PostgreSQL log, over real HTTP and a throwaway server:
 * the body is stored as received (its text in the body column, routing
 * columns from its value), a delivery id stored unchanged and deduplicated
 * (concurrent redeliveries included), ids PostgreSQL text cannot hold get
 * 400 (never 500/503), and a database that is gone gets 503 + Retry-After.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { send, serveNode } from './fixtures/http-servers.js';

const db = throwawayPostgres(6);
const SECRET = 'pg-secret';
const bytes = (text: string) => new TextEncoder().encode(text);
const signedHeaders = (text: string, id?: string): Record<string, string> => ({
  'x-signature': signWebhookBody(bytes(text), SECRET),
  ...(id === undefined ? {} : { 'x-delivery-id': id }),
});

const openLog = async (schema: string) => {
  (await migrate(db.pool, { schema }))._unsafeUnwrap();
  return (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
};

describe('createWebhookHandler on the PostgreSQL log', () => {
  it('stores the body text as received and its routing columns, once per delivery id', async () => {
    const log = await openLog('handler_text');
    const served = await serveNode(createWebhookHandler({ log, secrets: [SECRET] }), 256 * 1024);
    try {
      const body =
        '{\r\n "type": "sign-request-sent", "companyId": 7, "signRequestId": 12345678901234567890,\n "x": 1e400, "s": "\\u00e9\\ud83d\\ude00" }';
      // HTTP drops the spaces around a header value; the rest is stored as it came.
      const id = 'evt ü 1';
      const first = await send(served.url, body, signedHeaders(body, id));
      expect([first.status, first.body]).toEqual([200, { position: 1, duplicate: false }]);
      // The same delivery three times at once, and once more: one row.
      const again = await Promise.all(
        Array.from({ length: 3 }, () => send(served.url, body, signedHeaders(body, id))),
      );
      expect(again.map((a) => [a.status, a.body])).toEqual(
        Array.from({ length: 3 }, () => [200, { position: 1, duplicate: true }]),
      );
      const rows = await db.pool.query<{
        body: string;
        delivery_id: string;
        company_id: string;
        event_type: string;
      }>('SELECT body, delivery_id, company_id, event_type FROM handler_text.events');
      expect(rows.rows).toEqual([
        {
          body: body.replace(/[\r\n]/g, ' '),
          delivery_id: id,
          company_id: '7',
          event_type: 'sign-request-sent',
        },
      ]);
      // Read back through the log: the same text, 1e400 a non-finite number (not null).
      for await (const batch of log.read()) {
        expect(batch[0]).toMatchObject({
          kind: 'entry',
          deliveryId: id,
          event: { x: Number.POSITIVE_INFINITY },
        });
      }
    } finally {
      await served.close();
      await log.close();
    }
  });

  it('refuses a delivery id PostgreSQL text cannot hold with 400 and a reason, storing nothing', async () => {
    const log = await openLog('handler_ids');
    const handler = createWebhookHandler({ log, secrets: [SECRET] });
    const body = '{"type":"template-deleted"}';
    for (const [id, reason] of [
      ['a\u0000b', /contains NUL/],
      ['a\udc00', /unpaired UTF-16 surrogate/],
    ] as const) {
      const answer = await handler({
        method: 'POST',
        headers: signedHeaders(body, id),
        body: bytes(body),
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatch(reason);
    }
    const count = await db.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM handler_ids.events',
    );
    expect(count.rows[0]?.n).toBe('0');
    await log.close();
  });

  it('a database that is gone gets 503 with Retry-After, and nothing is stored', async () => {
    (await migrate(db.pool, { schema: 'handler_down' }))._unsafeUnwrap();
    const pool = new pg.Pool({ connectionString: db.server.url, max: 2 });
    pool.on('error', () => undefined);
    const log = (await openPostgresEventLog(pool, { schema: 'handler_down' }))._unsafeUnwrap();
    const served = await serveNode(createWebhookHandler({ log, secrets: [SECRET] }), 256 * 1024);
    try {
      // Every connection of the pool is killed by the server, then the pool is ended.
      await db.pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ''",
      );
      await pool.end();
      const body = '{"type":"template-deleted"}';
      const answer = await send(served.url, body, signedHeaders(body, 'd-down'));
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      const count = await db.pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM handler_down.events',
      );
      expect(count.rows[0]?.n).toBe('0');
    } finally {
      await served.close();
      await log.close();
    }
  });
});
