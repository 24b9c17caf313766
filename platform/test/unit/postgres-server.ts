// A PostgreSQL server for tests: the one `PARLEY_TEST_DATABASE_URL` names (CI starts Debian's cluster), else a
// throwaway cluster started here (initdb in a temp directory, a free port, stopped and deleted by dispose).
// Without PostgreSQL installed the tests fail with the package to install; they never skip.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface PostgresServer {
  /** A superuser connection string (database `postgres`). */
  url: string;
  dispose(): Promise<void>;
}

/** The directory holding initdb and pg_ctl: on PATH, else Debian's /usr/lib/postgresql/<version>/bin. */
function binDir(): string {
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) {
    const initdb = which.stdout.trim();
    const pgCtl = join(initdb, '..', 'pg_ctl');
    if (existsSync(pgCtl)) return join(initdb, '..');
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) {
    throw new Error('PostgreSQL is not installed: the PostgreSQL tests need its server (initdb, pg_ctl). Install it with `apt-get install -y postgresql` or set PARLEY_TEST_DATABASE_URL.');
  }
  return join(root, versions[0], 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<PostgresServer> {
  const given = process.env.PARLEY_TEST_DATABASE_URL;
  if (given) return { url: given, dispose: async () => {} };
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'parley-pg-'));
  // initdb refuses to run as root: the cluster then belongs to the `postgres` user.
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()));
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args];
    const r = spawnSync(file, argv, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout || r.error}`);
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'parley', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  return {
    url: `postgres://parley@127.0.0.1:${port}/postgres`,
    async dispose() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Creates a new empty database on the server (`parley_t_<random>`, or `name`) and returns its connection string. */
export async function freshDatabase(serverUrl: string, name = `parley_t_${randomBytes(6).toString('hex')}`): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rows.length) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
