import { spawn } from 'node:child_process';
import { join } from 'node:path'; import { tmpdir } from 'node:os';
import pg from 'pg';
const ROOT = '/work/main';
const { startPostgres } = await import(join(ROOT, 'scripts/throwaway-postgres.js'));
const { generateEvents, writeNdjson } = await import(join(ROOT, 'bench/generate-stream.js'));
const CLI = join(ROOT, 'dist/cli/main.js');
const SILENT = join(ROOT, 'bench/reactors/silent.mjs');
const cli = (args, pre = []) => new Promise((res, rej) => { const c = spawn(process.execPath, [...pre, CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] }); let e = ''; c.stderr.on('data', (d) => (e += d)); c.on('close', (code) => (code === 0 ? res() : rej(new Error(e)))); });
const server = await startPostgres();
try {
  const log = join(tmpdir(), 'exp-pg.ndjson');
  writeNdjson(log, [...generateEvents({ seed: 13, signRequests: Number(process.env.REQ ?? 10000) })], { envelope: true, seed: 5 });
  const base = await server.createDatabase('base');
  await cli(['pg', 'migrate', '--database', base, '--partitions', '8']);
  let t = performance.now(); await cli(['pg', 'import', log, '--database', base]); console.log('import ms', (performance.now() - t).toFixed(0));
  const admin = new pg.Client({ connectionString: base.replace(/\/base$/, '/postgres') }); await admin.connect();
  const times = { plain: [], silent: [] };
  for (let r = 0; r < Number(process.env.ROUNDS ?? 5); r++) for (const mode of ['plain', 'silent']) {
    const name = `${mode}_${r}`; await admin.query(`CREATE DATABASE ${name} TEMPLATE base`);
    const url = base.replace(/\/base$/, `/${name}`);
    t = performance.now(); await cli(['pg', 'work', '--database', url, '--drain', ...(mode === 'silent' ? ['--reactors', SILENT] : [])], process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=/tmp/exp/pg-${mode}`] : []); times[mode].push(performance.now() - t);
  }
  await admin.end();
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log('plain', times.plain.map((x) => x.toFixed(0)).join(' '), '| silent', times.silent.map((x) => x.toFixed(0)).join(' '));
  console.log('ratio of medians', (med(times.plain) / med(times.silent)).toFixed(3), 'paired', med(times.plain.map((p, i) => p / times.silent[i])).toFixed(3));
} finally { server.stop(); }
