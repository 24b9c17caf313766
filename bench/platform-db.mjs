// The local platform's two databases, in one run: non-streamed conversation starts per second (POST
// /v1/conversations, local model, zero pacing, 8 at a time) on PGlite (`--data`, the embedded default), on
// PostgreSQL with one `parley platform` process, and with two processes on the same PostgreSQL database
// (requests spread over both). PostgreSQL: PARLEY_BENCH_DATABASE_URL (a server URL whose role may create
// databases), else a throwaway cluster started here with Debian's initdb/pg_ctl (default settings).
import { spawnSync, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { KEY, headers, startPlatformWith as startCli } from './platform.mjs';

const pg = createRequire(join(import.meta.dirname, '../platform/package.json'))('pg');


const stop = (child) => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); });

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
  });
}

/** A PostgreSQL server: the given one, or a throwaway cluster (as the `postgres` user when running as root). */
async function postgresServer() {
  const given = process.env.PARLEY_BENCH_DATABASE_URL;
  if (given) return { url: given, dispose() {} };
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin/initdb'))).sort((a, b) => b - a)[0] : undefined;
  if (!version) throw new Error('PostgreSQL is not installed: apt-get install -y postgresql (or set PARLEY_BENCH_DATABASE_URL)');
  const bin = join(root, version, 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const run = (cmd, args) => {
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { encoding: 'utf8' }) : spawnSync(join(bin, cmd), args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', join(dir, 'data'), '-U', 'parley', '-A', 'trust', '-E', 'UTF8']);
  const port = await freePort();
  run('pg_ctl', ['-D', join(dir, 'data'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://parley@127.0.0.1:${port}/postgres`,
    dispose() {
      try { run('pg_ctl', ['-D', join(dir, 'data'), '-m', 'fast', 'stop']); } finally { rmSync(dir, { recursive: true, force: true }); }
    },
  };
}

async function newDatabase(serverUrl, name) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name}`);
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Conversation starts per second, `n` of them, `concurrency` at a time, spread round-robin over `urls`. */
async function starts(urls, n = 400, concurrency = 8) {
  let sent = 0;
  const once = async () => {
    const url = urls[sent % urls.length];
    sent++;
    const r = await fetch(`${url}/v1/conversations`, { method: 'POST', headers, body: JSON.stringify({ model: 'parley-local', inputs: 'Benchmark: say something short.' }) });
    await r.arrayBuffer();
    if (!r.ok) throw new Error(`start ${r.status}`);
  };
  for (let i = 0; i < 40; i++) await once(); // warm up (every process)
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < n) await once();
  }));
  return n / ((performance.now() - t0) / 1000);
}

export async function benchPlatformDb() {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-db-'));
  let pglite;
  try {
    const p = await startCli(['--data', dataDir]);
    try { pglite = await starts([p.url]); } finally { await stop(p.child); }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  const server = await postgresServer();
  let one;
  let two;
  try {
    const oneUrl = await newDatabase(server.url, 'parley_bench_one');
    const p = await startCli(['--database-url', oneUrl]);
    try { one = await starts([p.url]); } finally { await stop(p.child); }

    const twoUrl = await newDatabase(server.url, 'parley_bench_two');
    const [a, b] = await Promise.all([startCli(['--database-url', twoUrl]), startCli(['--database-url', twoUrl])]);
    try { two = await starts([a.url, b.url]); } finally { await Promise.all([stop(a.child), stop(b.child)]); }
  } finally {
    server.dispose();
  }
  return {
    'conversation starts per second, PGlite (--data)': pglite.toFixed(0),
    'conversation starts per second, PostgreSQL, one process': one.toFixed(0),
    'conversation starts per second, PostgreSQL, two processes': two.toFixed(0),
    'PostgreSQL one process / PGlite': (one / pglite).toFixed(2),
    'PostgreSQL two processes / one process': (two / one).toFixed(2),
  };
}
