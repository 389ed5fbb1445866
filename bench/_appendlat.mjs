import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { migrate, openPostgresEventLog } from '../dist/postgres/index.js';
import { generateEvents } from './generate-stream.js';
const server = await startPostgres();
const pool = new pg.Pool({ connectionString: server.url, max: 4 });
(await migrate(pool, { partitions: 16 }))._unsafeUnwrap();
const log = (await openPostgresEventLog(pool))._unsafeUnwrap();
(await log.ping())._unsafeUnwrap();
const evs = [...generateEvents({ seed: 1, signRequests: 500 })].slice(0, 3000);
const q = (xs, p) => xs.sort((a, b) => a - b)[Math.floor(xs.length * p)].toFixed(2);
const lat = [];
for (let i = 0; i < 1500; i++) { const t = performance.now(); (await log.append(evs[i], { deliveryId: `d${i}` }))._unsafeUnwrap(); lat.push(performance.now() - t); }
console.log('log.append p50', q(lat, 0.5), 'p99', q(lat, 0.99));
const c = await pool.connect();
const l2 = [];
for (let i = 1500; i < 3000; i++) { const t = performance.now(); await c.query('INSERT INTO signfold.events (delivery_id, body, event_type, sign_request_id) VALUES ($1, $2, $3, $4)', [`d${i}`, JSON.stringify(evs[i]), evs[i].type, evs[i].signRequestId ?? null]); l2.push(performance.now() - t); }
console.log('raw insert into events p50', q(l2, 0.5), 'p99', q(l2, 0.99));
await c.query('CREATE TABLE signfold.t (id bigserial primary key, body text)');
const l3 = [];
for (let i = 0; i < 1500; i++) { const t = performance.now(); await c.query('INSERT INTO signfold.t (body) VALUES ($1)', [JSON.stringify(evs[i])]); l3.push(performance.now() - t); }
console.log('plain table p50', q(l3, 0.5), 'p99', q(l3, 0.99));

const { insertEventsSql, eventColumns } = await import('../dist/postgres/event-rows.js');
const l4 = [];
for (let i = 0; i < 1500; i++) { const e = evs[(i * 7) % 3000]; const t = performance.now(); await c.query(insertEventsSql('signfold'), [...eventColumns([{ deliveryId: `z${i}`, receivedAt: new Date().toISOString(), body: JSON.stringify(e), badLine: undefined, event: e }]), 0]); l4.push(performance.now() - t); }
console.log('insertEventsSql direct p50', q(l4, 0.5), 'p99', q(l4, 0.99));
const l5 = [];
for (let i = 0; i < 1500; i++) { const e = evs[(i * 7) % 3000]; const t = performance.now(); (await log.append(e, { deliveryId: `y${i}` }))._unsafeUnwrap(); l5.push(performance.now() - t); }
const l6 = [];
for (let i = 0; i < 1500; i++) { const e = evs[(i * 7) % 3000]; const t = performance.now(); await c.query({ name: 'ins', text: insertEventsSql('signfold'), values: [...eventColumns([{ deliveryId: `w${i}`, receivedAt: new Date().toISOString(), body: JSON.stringify(e), badLine: undefined, event: e }]), 0] }); l6.push(performance.now() - t); }
console.log('insertEventsSql prepared p50', q(l6, 0.5), 'p99', q(l6, 0.99));
console.log('log.append again p50', q(l5, 0.5), 'p99', q(l5, 0.99));
c.release(); await pool.end(); server.stop();
