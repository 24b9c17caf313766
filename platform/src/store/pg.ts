/**
 * The platform's database on a PostgreSQL server, through the `pg` driver's connection pool. It answers with
 * the same JS types as PGlite (see db.ts) and keeps PGlite's meaning of a transaction: SERIALIZABLE, retried
 * when the server reports a serialization failure or a deadlock, so a transaction written for PGlite's single
 * connection stays correct when several platform processes share the database.
 */
import pg from 'pg';
import type { Db, QueryResult, Queryable } from './db.js';

const { Pool, types } = pg;

/** int8 (counts, bigserial, bigint columns) as a JS number, as PGlite answers; numeric stays a string. */
const INT8 = 20;
const INT8_ARRAY = 1016;
const BYTEA = 17;

const parseInt8 = (value: string) => Number(value);
const parseBytea = types.getTypeParser(BYTEA, 'text') as (value: string) => Buffer;

/** The type parsers of this pool (the driver's global ones stay untouched). */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return parseInt8;
    if (oid === INT8_ARRAY) return (value: string) => (types.getTypeParser(1007 as Parameters<typeof types.getTypeParser>[0], 'text') as (v: string) => number[])(value);
    if (oid === BYTEA) {
      return (value: string) => {
        const buffer = parseBytea(value);
        return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      };
    }
    return types.getTypeParser(oid as Parameters<typeof types.getTypeParser>[0], format ?? 'text');
  },
};

/** Serialization failure and deadlock: the transaction is rolled back and may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 30;

/** The connection string without its password, for messages. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the given database URL';
  }
}

/**
 * PGlite infers each parameter's type from the statement, so a JS array given for a jsonb column is stored
 * as JSON. The `pg` driver sends arrays as Postgres arrays, which only `any($n)`, `all($n)` and `$n::type[]`
 * expect: any other array parameter is sent as JSON, as PGlite would.
 */
function prepareParams(sql: string, params: unknown[] | undefined): unknown[] | undefined {
  if (!params?.some((p) => Array.isArray(p))) return params;
  return params.map((p, i) => {
    if (!Array.isArray(p)) return p;
    const n = i + 1;
    const asArray = new RegExp(`(any|all)\\s*\\(\\s*\\$${n}(?!\\d)|\\$${n}(?!\\d)\\s*::\\s*[a-z0-9_ ]+\\[\\]`, 'i');
    return asArray.test(sql) ? p : JSON.stringify(p);
  });
}

const CHANGES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

function result<T>(r: pg.QueryResult): QueryResult<T> {
  return { rows: r.rows as T[], affectedRows: CHANGES.has(r.command) ? r.rowCount ?? 0 : 0 };
}

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return result<T>(await client.query({ text: sql, values: prepareParams(sql, params), types: typeParsers }));
    },
    exec: (sql) => client.query({ text: sql, types: typeParsers }),
  };
}

/** A stable 64-bit key for an advisory lock name (hashtext is Postgres's own string hash). */
const LOCK_KEY = `select pg_advisory_lock(hashtext('parley:' || $1))`;
const UNLOCK_KEY = `select pg_advisory_unlock(hashtext('parley:' || $1))`;

export async function openPostgres(databaseUrl: string, options: { max?: number } = {}): Promise<Db> {
  const pool = new Pool({ connectionString: databaseUrl, max: options.max ?? 10, connectionTimeoutMillis: 10_000 });
  // An idle connection the server closes (restart, admin kill) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    client.release();
  } catch (e) {
    await pool.end().catch(() => {});
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`Cannot connect to PostgreSQL at ${redactDatabaseUrl(databaseUrl)}: ${reason}`);
  }
  const base = queryable(pool);
  let closed = false;
  return {
    get closed() { return closed; },
    kind: 'postgres',
    query: base.query,
    exec: base.exec,
    async transaction(fn) {
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query('begin isolation level serializable');
          const value = await fn(queryable(client));
          await client.query('commit');
          return value;
        } catch (e) {
          await client.query('rollback').catch((rollbackError: Error) => { broken = rollbackError; });
          const code = (e as { code?: unknown })?.code;
          if (typeof code === 'string' && RETRYABLE.has(code) && attempt < MAX_ATTEMPTS) {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
            continue;
          }
          throw e;
        } finally {
          client.release(broken);
        }
      }
    },
    async exclusive(name, fn) {
      const client = await pool.connect();
      try {
        await client.query(LOCK_KEY, [name]);
        try {
          return await fn();
        } finally {
          await client.query(UNLOCK_KEY, [name]);
        }
      } finally {
        client.release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
