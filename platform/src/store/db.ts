/**
 * The platform's database: one small interface (`query`, `exec`, `transaction`, `close`) over two engines
 * (open-db.ts opens either and migrates it).
 * - PGlite (Postgres compiled to wasm, no native addon) is the embedded default. With a directory it is
 *   durable: a commit is on disk before the HTTP answer is written. Without one (tests) it lives in memory.
 * - A PostgreSQL server (`databaseUrl`, through the `pg` driver, see pg.ts): several platform processes can
 *   share one database. Its transactions are SERIALIZABLE and retried on serialization failures, so every
 *   transaction behaves as it did on PGlite's single connection.
 * Both answer with the same JS types (int8 as number, numeric as string, json as values, bytea as Uint8Array).
 */
export interface QueryResult<T> {
  rows: T[];
  /** Rows changed by an insert, update or delete (0 for other statements). */
  affectedRows?: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** Runs one or more statements without parameters (migrations). */
  exec(sql: string): Promise<unknown>;
}

export type Tx = Queryable;

export interface Db extends Queryable {
  /** `pglite` (embedded, one process) or `postgres` (a server, maybe shared by several processes). */
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in a transaction; on PostgreSQL it may run again after a serialization failure, so keep it to queries. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` while holding a lock named `name` that no other process on the same database holds at the
   * same time (a session advisory lock on PostgreSQL; PGlite has one process, so it just runs `fn`).
   */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** True once `close` was called (background work stops touching the database then). */
  readonly closed: boolean;
}
