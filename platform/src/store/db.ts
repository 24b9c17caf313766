import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { MIGRATIONS as TENANCY } from '../tenancy/schema.js';
import { MIGRATIONS as CONNECTORS } from '../connectors/schema.js';
import { MIGRATIONS as DATASETS } from '../datasets/schema.js';
import { MIGRATIONS as REGISTRIES } from '../registries/schema.js';
import { MIGRATIONS as FILES } from '../files/schema.js';
import { MIGRATIONS as VOICES } from '../voices/schema.js';
import { MIGRATIONS as BATCH } from '../batch/schema.js';
import { MIGRATIONS as FINE_TUNING } from '../fine-tuning/schema.js';
import { MIGRATIONS as LIBRARIES } from '../libraries/schema.js';

/**
 * The local platform's embedded database: PGlite (Postgres compiled to wasm, no native addon).
 * With a directory it is durable: a commit is on disk before the HTTP answer is written.
 * Without one (tests) it lives in memory.
 */
export type Db = PGlite;

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
];

export async function openDb(dataDir?: string): Promise<Db> {
  let db: PGlite;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    db = await PGlite.create(dataDir);
  } else {
    db = await PGlite.create();
  }
  await migrate(db);
  return db;
}

/**
 * Each area of the API keeps its own migration list beside its code; an area's version is counted
 * separately, so areas can grow independently. `core` is the original schema (its versions stay in
 * `parley_schema`, as in databases made before areas existed).
 */
const AREAS: Record<string, string[]> = { tenancy: TENANCY, connectors: CONNECTORS, datasets: DATASETS, registries: REGISTRIES, files: FILES, voices: VOICES, batch: BATCH, 'fine-tuning': FINE_TUNING, libraries: LIBRARIES };

async function migrate(db: PGlite): Promise<void> {
  await db.exec(`create table if not exists parley_schema (version integer not null);
    create table if not exists parley_area_schema (area text not null, version integer not null, primary key (area, version))`);
  const core = await db.query<{ version: number }>('select max(version) as version from parley_schema');
  await apply(db, CORE, core.rows[0]?.version ?? 0, (tx, v) => tx.query('insert into parley_schema (version) values ($1)', [v]));
  for (const [area, migrations] of Object.entries(AREAS)) {
    const { rows } = await db.query<{ version: number }>('select max(version) as version from parley_area_schema where area = $1', [area]);
    await apply(db, migrations, rows[0]?.version ?? 0, (tx, v) => tx.query('insert into parley_area_schema (area, version) values ($1, $2)', [area, v]));
  }
}

type Tx = Parameters<Parameters<PGlite['transaction']>[0]>[0];

async function apply(db: PGlite, migrations: string[], current: number, mark: (tx: Tx, version: number) => Promise<unknown>): Promise<void> {
  for (let v = current + 1; v <= migrations.length; v++) {
    await db.transaction(async (tx) => {
      await tx.exec(migrations[v - 1]);
      await mark(tx, v);
    });
  }
}
