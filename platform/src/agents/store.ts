/** The agents kept in the database, with their versions and aliases (the store the agents API and every agent's conversation read). */
import type { Agent, AgentAlias, CreateAgentRequest, UpdateAgentRequest } from 'parley-kit/types';
import { isoNow } from '../http/ids.js';
import type { Db } from '../store/db.js';

/**
 * Agents with their versions and aliases. Every update makes a new version; the agent's
 * current version is the one answered by default.
 *
 * Layout (core migration 1 in store/open-db.ts): `agents` holds one row per agent (id, insertion `seq`, current
 * version, creation and last-change times); `agent_versions.record` holds the whole configuration of
 * one version as a {@link AgentVersionRecord}; `agent_aliases` maps a name to a version.
 *
 * - Versions are numbered from 0: a new agent is at version 0, each update adds max+1 and makes it current.
 * - In an answered Agent, `created_at` is when the agent was created and `updated_at` is when the
 *   version shown was made (so a version's answer never changes once written).
 * - Writes that belong together (agent + first version, new version + current pointer, alias checks)
 *   run in one transaction.
 */
export interface AgentStore {
  /** The agent at its current version, or null when unknown. */
  get(id: string): Promise<Agent | null>;
  /** The agent at a version number or alias; null when the agent, version or alias is unknown. */
  getVersion(id: string, versionOrAlias: number | string): Promise<Agent | null>;

  /**
   * Like getVersion, but says what is missing: throws {@link AgentStoreError} (`agent_not_found`,
   * `version_not_found` or `alias_not_found`). A number or an all-digit string is a version, anything else an alias.
   */
  resolve(id: string, versionOrAlias?: number | string | null): Promise<Agent>;
  /** Creates an agent at version 0. Throws `handoff_not_found` when a handoff id names no agent. */
  create(input: NewAgent): Promise<Agent>;
  /**
   * Makes a new version from the current one with `patch` applied (absent fields are kept; `null`
   * clears the nullable ones; `name`, `model`, `deployment_chat` keep their value on null) and makes it current.
   * Throws `agent_not_found`, `handoff_not_found`.
   */
  update(id: string, patch: AgentPatch): Promise<Agent>;
  /** Makes an existing version current. Throws `agent_not_found`, `version_not_found`. */
  setCurrentVersion(id: string, version: number): Promise<Agent>;
  /** Agents at their current version, newest first. */
  list(filter: AgentFilter, page: AgentPageRequest): Promise<{ agents: Agent[]; next: AgentCursor | null }>;
  /** Every version of an agent, newest first. Throws `agent_not_found`. */
  listVersions(id: string, page: { offset: number; limit: number }): Promise<Agent[]>;
  /** Aliases of an agent, oldest first. Throws `agent_not_found`. */
  listAliases(id: string): Promise<AgentAlias[]>;
  /** Creates the alias or points it at another version. Throws `agent_not_found`, `version_not_found`. */
  putAlias(id: string, alias: string, version: number): Promise<AgentAlias>;
  /** Throws `agent_not_found`, `alias_not_found`. */
  deleteAlias(id: string, alias: string): Promise<void>;
  /** Deletes the agent with its versions and aliases; false when unknown. */
  delete(id: string): Promise<boolean>;
}

/** The configuration one version holds: every field of a create request, plus where the agent comes from. */
export type AgentConfig = Required<CreateAgentRequest> & { deployment_chat: boolean; source: string };

/** What `agent_versions.record` holds: the configuration plus when the version was made. */
export interface AgentVersionRecord extends AgentConfig {
  created_at: string;
}

/** A configuration as given: absent fields take their defaults ({@link withDefaults}). */
type GivenConfig = CreateAgentRequest & { deployment_chat?: boolean; source?: string };

export type NewAgent = GivenConfig & { id: string; createdAt: string };

/** An update request's fields (`name`, `model` and `deployment_chat` may be null: kept), and when it was made. */
export type AgentPatch = Omit<UpdateAgentRequest, 'name' | 'model'> & { updatedAt: string; name?: string | null; model?: string | null };

export interface AgentFilter {
  deploymentChat?: boolean;
  sources?: string[];
  /** Exact name. */
  name?: string;
  /** Case-insensitive substring of the name or the description. */
  search?: string;
  id?: string;
  /** Agents whose metadata contains these key/values (JSON containment). */
  metadata?: Record<string, unknown>;
}

/** Position after which a keyset page starts: the insertion sequence of the last agent answered. */
export interface AgentCursor { seq: number }

export type AgentPageRequest =
  | { limit: number; offset: number }
  | { limit: number; after: AgentCursor | null };

export type AgentStoreErrorKind = 'agent_not_found' | 'version_not_found' | 'alias_not_found' | 'handoff_not_found';

/** A miss the routes turn into 404 (or 422 for handoffs). */
export class AgentStoreError extends Error {
  constructor(
    readonly kind: AgentStoreErrorKind,
    message: string,
    /** The version, alias or handoff ids that were not found. */
    readonly subject?: number | string | string[],
  ) {
    super(message);
    this.name = 'AgentStoreError';
  }
}

const agentMissing = (id: string) => new AgentStoreError('agent_not_found', `Agent '${id}' not found`, id);
const versionMissing = (id: string, version: number) =>
  new AgentStoreError('version_not_found', `Version ${version} of agent '${id}' not found`, version);
const aliasMissing = (id: string, alias: string) =>
  new AgentStoreError('alias_not_found', `Alias '${alias}' of agent '${id}' not found`, alias);

/** A version number written as a string: digits only, fits in a Postgres integer. */
export function parseVersionNumber(value: string): number | null {
  if (!/^\d{1,10}$/.test(value)) return null;
  const n = Number(value);
  return n <= 2147483647 ? n : null;
}

interface Row {
  id: string;
  seq: number | string;
  created_at: string;
  version: number;
  record: AgentVersionRecord;
  versions: number[];
}

/** Every field of a configuration, absent ones at their defaults (a record written before a field existed has none). */
function withDefaults(c: GivenConfig): AgentConfig {
  return {
    name: c.name,
    model: c.model,
    instructions: c.instructions ?? null,
    tools: c.tools ?? [],
    completion_args: c.completion_args ?? {},
    guardrails: c.guardrails ?? null,
    description: c.description ?? null,
    handoffs: c.handoffs ?? null,
    metadata: c.metadata ?? null,
    deployment_chat: c.deployment_chat ?? false,
    source: c.source ?? 'api',
    version_message: c.version_message ?? null,
  };
}

function toAgent(row: Row): Agent {
  const { name, model, deployment_chat, source, version_message, ...settings } = withDefaults(row.record);
  return {
    object: 'agent', id: row.id, name, model, version: row.version, versions: row.versions,
    ...settings,
    created_at: row.created_at, updated_at: row.record.created_at,
    deployment_chat, source, version_message,
  };
}

type Queryable = Pick<Db, 'query'>;

const VERSIONS_SQL = `(select jsonb_agg(vv.version order by vv.version) from agent_versions vv where vv.agent_id = a.id) as versions`;

/** One agent at one version (the current one when `version` is null). */
async function selectAgent(q: Queryable, id: string, version: number | null): Promise<Agent | null> {
  const { rows } = await q.query<Row>(
    `select a.id, a.seq, a.created_at, v.version, v.record, ${VERSIONS_SQL}
       from agents a join agent_versions v on v.agent_id = a.id and v.version = coalesce($2::integer, a.current_version)
      where a.id = $1`,
    [id, version],
  );
  return rows[0] ? toAgent(rows[0]) : null;
}

async function agentExists(q: Queryable, id: string, lock = false): Promise<boolean> {
  const { rows } = await q.query(`select 1 from agents where id = $1${lock ? ' for update' : ''}`, [id]);
  return rows.length > 0;
}

/** Whether the version exists; numbers outside a Postgres integer simply do not. */
async function versionExists(q: Queryable, id: string, version: number): Promise<boolean> {
  if (!isVersionNumber(version)) return false;
  const { rows } = await q.query('select 1 from agent_versions where agent_id = $1 and version = $2', [id, version]);
  return rows.length > 0;
}

const isVersionNumber = (n: number) => Number.isSafeInteger(n) && n >= 0 && n <= 2147483647;

async function requireHandoffs(q: Queryable, handoffs: string[] | null | undefined): Promise<void> {
  if (!handoffs?.length) return;
  const wanted = [...new Set(handoffs)];
  const { rows } = await q.query<{ id: string }>('select id from agents where id = any($1::text[])', [wanted]);
  const found = new Set(rows.map((r) => r.id));
  const missing = wanted.filter((h) => !found.has(h));
  if (missing.length) {
    throw new AgentStoreError(
      'handoff_not_found',
      `Handoff agent${missing.length > 1 ? 's' : ''} not found: ${missing.map((m) => `'${m}'`).join(', ')}`,
      missing,
    );
  }
}

function aliasOut(row: { alias: string; version: number; created_at: string; updated_at: string }): AgentAlias {
  return { alias: row.alias, version: row.version, created_at: row.created_at, updated_at: row.updated_at };
}

export function createAgentStore(db: Db): AgentStore {
  async function resolveIn(q: Queryable, id: string, versionOrAlias?: number | string | null): Promise<Agent> {
    let version: number | null = null;
    if (typeof versionOrAlias === 'number') {
      version = versionOrAlias;
    } else if (typeof versionOrAlias === 'string') {
      const n = parseVersionNumber(versionOrAlias);
      if (n !== null) {
        version = n;
      } else {
        const { rows } = await q.query<{ version: number }>(
          'select version from agent_aliases where agent_id = $1 and alias = $2', [id, versionOrAlias]);
        if (!rows[0]) {
          if (!(await agentExists(q, id))) throw agentMissing(id);
          throw aliasMissing(id, versionOrAlias);
        }
        version = rows[0].version;
      }
    }
    if (version !== null && !isVersionNumber(version)) {
      if (!(await agentExists(q, id))) throw agentMissing(id);
      throw versionMissing(id, version);
    }
    const agent = await selectAgent(q, id, version);
    if (agent) return agent;
    if (version !== null && (await agentExists(q, id))) throw versionMissing(id, version);
    throw agentMissing(id);
  }

  const store: AgentStore = {
    async get(id) {
      return selectAgent(db, id, null);
    },

    async getVersion(id, versionOrAlias) {
      try {
        return await resolveIn(db, id, versionOrAlias);
      } catch (err) {
        if (err instanceof AgentStoreError) return null;
        throw err;
      }
    },

    resolve(id, versionOrAlias) {
      return resolveIn(db, id, versionOrAlias);
    },

    async create(input) {
      const record: AgentVersionRecord = { ...withDefaults(input), created_at: input.createdAt };
      return db.transaction(async (tx) => {
        await requireHandoffs(tx, record.handoffs);
        await tx.query(
          'insert into agents (id, current_version, created_at, updated_at) values ($1, 0, $2, $2)',
          [input.id, input.createdAt],
        );
        await tx.query('insert into agent_versions (agent_id, version, record) values ($1, 0, $2)', [input.id, record]);
        return (await selectAgent(tx, input.id, 0))!;
      });
    },

    async update(id, patch) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<{ record: AgentVersionRecord; next: number }>(
          `select v.record, (select max(version) + 1 from agent_versions where agent_id = a.id) as next
             from agents a join agent_versions v on v.agent_id = a.id and v.version = a.current_version
            where a.id = $1 for update of a`,
          [id],
        );
        const row = rows[0];
        if (!row) throw agentMissing(id);
        const prev = row.record;
        const has = <K extends keyof AgentPatch>(k: K) => patch[k] !== undefined;
        const record: AgentVersionRecord = {
          name: patch.name ?? prev.name,
          model: patch.model ?? prev.model,
          instructions: has('instructions') ? patch.instructions ?? null : prev.instructions,
          tools: patch.tools ?? prev.tools,
          completion_args: patch.completion_args ?? prev.completion_args,
          guardrails: has('guardrails') ? patch.guardrails ?? null : prev.guardrails,
          description: has('description') ? patch.description ?? null : prev.description,
          handoffs: has('handoffs') ? patch.handoffs ?? null : prev.handoffs,
          metadata: has('metadata') ? patch.metadata ?? null : prev.metadata,
          deployment_chat: patch.deployment_chat ?? prev.deployment_chat,
          source: prev.source,
          // The message describes the change that made this version; it is not inherited.
          version_message: patch.version_message ?? null,
          created_at: patch.updatedAt,
        };
        if (has('handoffs')) await requireHandoffs(tx, record.handoffs);
        const version = Number(row.next);
        await tx.query('insert into agent_versions (agent_id, version, record) values ($1, $2, $3)', [id, version, record]);
        await tx.query('update agents set current_version = $2, updated_at = $3 where id = $1', [id, version, patch.updatedAt]);
        return (await selectAgent(tx, id, version))!;
      });
    },

    async setCurrentVersion(id, version) {
      return db.transaction(async (tx) => {
        if (!(await agentExists(tx, id, true))) throw agentMissing(id);
        if (!(await versionExists(tx, id, version))) throw versionMissing(id, version);
        const now = isoNow();
        await tx.query('update agents set current_version = $2, updated_at = $3 where id = $1', [id, version, now]);
        return (await selectAgent(tx, id, version))!;
      });
    },

    async list(filter, page) {
      const params: unknown[] = [];
      const where: string[] = [];
      const p = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      if (filter.deploymentChat !== undefined) where.push(`coalesce((v.record->>'deployment_chat')::boolean, false) = ${p(filter.deploymentChat)}::boolean`);
      if (filter.sources?.length) where.push(`coalesce(v.record->>'source', 'api') = any(${p(filter.sources)}::text[])`);
      if (filter.name !== undefined) where.push(`v.record->>'name' = ${p(filter.name)}`);
      if (filter.search !== undefined && filter.search !== '') {
        const s = p(filter.search.toLowerCase());
        where.push(`(strpos(lower(v.record->>'name'), ${s}) > 0 or strpos(lower(coalesce(v.record->>'description', '')), ${s}) > 0)`);
      }
      if (filter.id !== undefined) where.push(`a.id = ${p(filter.id)}`);
      if (filter.metadata && Object.keys(filter.metadata).length) {
        where.push(`coalesce(v.record->'metadata', '{}'::jsonb) @> ${p(filter.metadata)}::jsonb`);
      }
      let tail: string;
      if ('offset' in page) {
        tail = `limit ${p(page.limit + 1)} offset ${p(page.offset)}`;
      } else {
        if (page.after) where.push(`a.seq < ${p(page.after.seq)}`);
        tail = `limit ${p(page.limit + 1)}`;
      }
      const { rows } = await db.query<Row>(
        `select a.id, a.seq, a.created_at, v.version, v.record, ${VERSIONS_SQL}
           from agents a join agent_versions v on v.agent_id = a.id and v.version = a.current_version
          ${where.length ? `where ${where.join(' and ')}` : ''}
          order by a.seq desc ${tail}`,
        params,
      );
      const more = rows.length > page.limit;
      const shown = more ? rows.slice(0, page.limit) : rows;
      const last = shown[shown.length - 1];
      return { agents: shown.map(toAgent), next: more && last ? { seq: Number(last.seq) } : null };
    },

    async listVersions(id, { offset, limit }) {
      if (!(await agentExists(db, id))) throw agentMissing(id);
      const { rows } = await db.query<Row>(
        `select a.id, a.seq, a.created_at, v.version, v.record, ${VERSIONS_SQL}
           from agents a join agent_versions v on v.agent_id = a.id
          where a.id = $1
          order by v.version desc limit $2 offset $3`,
        [id, limit, offset],
      );
      return rows.map(toAgent);
    },

    async listAliases(id) {
      if (!(await agentExists(db, id))) throw agentMissing(id);
      const { rows } = await db.query<{ alias: string; version: number; created_at: string; updated_at: string }>(
        'select alias, version, created_at, updated_at from agent_aliases where agent_id = $1 order by created_at, alias',
        [id],
      );
      return rows.map(aliasOut);
    },

    async putAlias(id, alias, version) {
      return db.transaction(async (tx) => {
        if (!(await agentExists(tx, id, true))) throw agentMissing(id);
        if (!(await versionExists(tx, id, version))) throw versionMissing(id, version);
        const now = isoNow();
        const { rows } = await tx.query<{ alias: string; version: number; created_at: string; updated_at: string }>(
          `insert into agent_aliases (agent_id, alias, version, created_at, updated_at) values ($1, $2, $3, $4, $4)
           on conflict (agent_id, alias) do update set version = excluded.version, updated_at = excluded.updated_at
           returning alias, version, created_at, updated_at`,
          [id, alias, version, now],
        );
        return aliasOut(rows[0]);
      });
    },

    async deleteAlias(id, alias) {
      await db.transaction(async (tx) => {
        if (!(await agentExists(tx, id, true))) throw agentMissing(id);
        const { affectedRows } = await tx.query('delete from agent_aliases where agent_id = $1 and alias = $2', [id, alias]);
        if (!affectedRows) throw aliasMissing(id, alias);
      });
    },

    async delete(id) {
      const { affectedRows } = await db.query('delete from agents where id = $1', [id]);
      return (affectedRows ?? 0) > 0;
    },
  };
  return store;
}
