/**
 * Opens the platform's database (db.ts): PGlite, in memory or in a directory, or a PostgreSQL server; then
 * migrates it: the core schema, every area's migrations as app.ts hands them, the job leases' last.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { Db, Tx } from './db.js';
import { openPostgres } from './pg.js';
import { openPglite } from './pglite.js';
import { MIGRATIONS as LEASES, clearLeases } from './leases.js';

/**
 * Each area of the API keeps its own migration list beside its code (`<area>/migrations.ts`), by the name its
 * versions are counted under; an area's version is counted separately, so areas grow independently.
 */
export type AreaMigrations = Readonly<Record<string, readonly string[]>>;

export interface DbOptions {
  /** PGlite's directory (durable); omit for memory. Ignored with `databaseUrl`. */
  dataDir?: string;
  /** A PostgreSQL connection string (`postgres://user:password@host:port/db`): use that server instead of PGlite. */
  databaseUrl?: string;
  /** Every area's migrations, applied in this order after the core schema (app.ts lists them). */
  areas: AreaMigrations;
}

/** Core schema versions, applied in order once each; never edit a shipped entry, add a new one. */
const CORE: string[] = [
  // 1: conversations, entries, agents
  `
  create table conversations (
    id text primary key,
    seq bigserial,
    created_at text not null,
    updated_at text not null,
    record jsonb not null,
    state jsonb not null
  );
  create index conversations_seq on conversations (seq);
  create table entries (
    conversation_id text not null references conversations(id) on delete cascade,
    position integer not null,
    id text not null,
    entry jsonb not null,
    primary key (conversation_id, position)
  );
  create index entries_id on entries (conversation_id, id);
  create table agents (
    id text primary key,
    seq bigserial,
    current_version integer not null,
    created_at text not null,
    updated_at text not null
  );
  create table agent_versions (
    agent_id text not null references agents(id) on delete cascade,
    version integer not null,
    record jsonb not null,
    primary key (agent_id, version)
  );
  create table agent_aliases (
    agent_id text not null references agents(id) on delete cascade,
    alias text not null,
    version integer not null,
    created_at text not null,
    updated_at text not null,
    primary key (agent_id, alias)
  );
  `,
  // 2: conversations with a turn in progress (conversations/turn-locks.ts), shared by every process on the database
  `
  create table conversation_turns (
    conversation_id text primary key,
    token text not null,
    until timestamptz not null
  );
  `,
];

export async function openDb(options: DbOptions): Promise<Db> {
  const { dataDir, databaseUrl, areas } = options;
  let db: Db;
  if (databaseUrl) {
    db = await openPostgres(databaseUrl);
  } else {
    db = wrapPglite(await openPglite(dataDir));
  }
  try {
    // Two processes starting at once on one server: one migrates, the other waits and then finds nothing to do.
    await db.exclusive('migrate', () => migrate(db, areas));
    // Only one process opens a PGlite database: a job lease found in it was left by a stopped process.
    if (db.kind === 'pglite') {
      await clearLeases(db);
      await db.query('delete from conversation_turns');
    }
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}

/** PGlite as a Db: its one connection runs queries in order, so its transactions are exclusive. */
function wrapPglite(pglite: PGlite): Db {
  return {
    kind: 'pglite',
    query: (sql, params) => pglite.query(sql, params),
    exec: (sql) => pglite.exec(sql),
    transaction: (fn) => pglite.transaction((tx) => fn({ query: (sql, params) => tx.query(sql, params), exec: (sql) => tx.exec(sql) })),
    exclusive: (_name, fn) => fn(),
    close: () => pglite.close(),
    get closed() { return pglite.closed; },
  };
}

/**
 * The core schema first (the original one: its versions stay in `parley_schema`, as in databases made before
 * areas existed), then the areas', then the leases' last: they add lease columns to the job tables of the areas.
 */
async function migrate(db: Db, areas: AreaMigrations): Promise<void> {
  await db.exec(`create table if not exists parley_schema (version integer not null);
    create table if not exists parley_area_schema (area text not null, version integer not null, primary key (area, version))`);
  const core = await db.query<{ version: number }>('select max(version) as version from parley_schema');
  await apply(db, CORE, core.rows[0]?.version ?? 0, (tx, v) => tx.query('insert into parley_schema (version) values ($1)', [v]));
  for (const [area, migrations] of Object.entries({ ...areas, leases: LEASES })) {
    const { rows } = await db.query<{ version: number }>('select max(version) as version from parley_area_schema where area = $1', [area]);
    await apply(db, migrations, rows[0]?.version ?? 0, (tx, v) => tx.query('insert into parley_area_schema (area, version) values ($1, $2)', [area, v]));
  }
}

async function apply(db: Db, migrations: readonly string[], current: number, mark: (tx: Tx, version: number) => Promise<unknown>): Promise<void> {
  for (let v = current + 1; v <= migrations.length; v++) {
    await db.transaction(async (tx) => {
      await tx.exec(migrations[v - 1]);
      await mark(tx, v);
    });
  }
}
