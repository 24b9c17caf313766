/**
 * Durable store of registry objects (prompts and skills) with numbered versions and aliases, in the
 * tables of this area's migration 1. One store serves one kind; the SQL is shared.
 *
 * - Versions are numbered from 1; `latest_version` is the highest. Definitions are stored as jsonb, so
 *   "same definition as the latest version" is jsonb equality (key order does not matter).
 * - An alias names one version of one object; putting it on another version moves it.
 * - Every object belongs to a workspace. `private` objects are seen only by their creator; `workspace`
 *   ones by everyone in the workspace, who may also write versions when the workspace relation is
 *   `writer`. Sharing and deletion are the creator's. Objects a caller cannot see are reported as
 *   missing, so their existence does not leak.
 * - Multi-statement writes run in one transaction.
 */
import type { Db } from '../store/db.js';

export type RegistryKind = 'prompt' | 'skill';
export type SharingScope = 'private' | 'workspace';
export type WorkspaceRelation = 'reader' | 'writer';

/** Who is acting: the caller's workspace and user. */
export interface Actor { workspaceId: string; userId: string }

export interface ObjectRecord {
  id: string;
  name: string;
  title: string | null;
  description: string | null;
  sharingScope: SharingScope;
  workspaceRelation: WorkspaceRelation;
  createdBy: string;
  latestVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface VersionRecord {
  version: number;
  definition: unknown;
  notes: string | null;
  /** Aliases on this version, sorted. */
  aliases: string[];
  createdAt: string;
}

export interface ObjectAtVersion { object: ObjectRecord; version: VersionRecord }

export interface NewObject {
  id: string;
  now: string;
  name: string;
  title?: string | null;
  description?: string | null;
  sharingScope: SharingScope;
  workspaceRelation: WorkspaceRelation;
  definition: unknown;
  notes?: string | null;
  aliases: string[];
}

/** Metadata changes; absent fields are kept, `null` title/description clears them. */
export interface MetadataPatch {
  title?: string | null;
  description?: string | null;
  sharingScope?: SharingScope;
  workspaceRelation?: WorkspaceRelation;
}

export type SortField = 'created_at' | 'last_modified_at' | 'name' | 'title';
export type SortDirection = 'asc' | 'desc';

/** Keyset position: the sort key and id of the last object answered. */
export interface ListCursor { key: string; id: string }

export interface ListRequest {
  /** Only objects that have this alias, each at the aliased version (else every object at its latest). */
  alias?: string;
  sort: { field: SortField; direction: SortDirection };
  limit: number;
  after?: ListCursor;
}

/** Which version `get` answers: the latest, a number, or an alias. */
export type VersionSelector = { version: number } | { alias: string } | null;

export type RegistryErrorKind = 'not_found' | 'version_not_found' | 'alias_not_found' | 'name_taken' | 'forbidden';

/** A miss or refusal the routes turn into 404, 409 or 403. */
export class RegistryError extends Error {
  constructor(readonly kind: RegistryErrorKind, message: string) {
    super(message);
    this.name = 'RegistryError';
  }
}

type Queryable = Pick<Db, 'query'>;

interface ObjectRow {
  id: string;
  name: string;
  title: string | null;
  description: string | null;
  sharing_scope: SharingScope;
  workspace_relation: WorkspaceRelation;
  created_by: string;
  latest_version: number;
  created_at: string;
  updated_at: string;
}

interface VersionRow {
  version: number;
  definition: unknown;
  notes: string | null;
  v_created_at: string;
  aliases: string[];
}

/** Sort keys as SQL over `registry_objects o`; byte order ("C") so the keyset comparison matches the ordering. */
const SORT_KEYS: Record<SortField, string> = {
  created_at: 'o.created_at collate "C"',
  last_modified_at: 'o.updated_at collate "C"',
  name: 'o.name collate "C"',
  title: `coalesce(o.title, '') collate "C"`,
};

const ALIASES_OF_V = `(select coalesce(jsonb_agg(a.alias order by a.alias), '[]'::jsonb) from registry_aliases a
   where a.object_id = v.object_id and a.version = v.version) as aliases`;
const VERSION_COLUMNS = `v.version, v.definition, v.notes, v.created_at as v_created_at, ${ALIASES_OF_V}`;

const toObject = (r: ObjectRow): ObjectRecord => ({
  id: r.id,
  name: r.name,
  title: r.title,
  description: r.description,
  sharingScope: r.sharing_scope,
  workspaceRelation: r.workspace_relation,
  createdBy: r.created_by,
  latestVersion: r.latest_version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toVersion = (r: VersionRow): VersionRecord => ({
  version: r.version,
  definition: r.definition,
  notes: r.notes,
  aliases: r.aliases,
  createdAt: r.v_created_at,
});

/** Prompts or skills of every workspace, seen through an {@link Actor}. */
export class RegistryStore {
  private readonly label: string;

  constructor(private readonly db: Db, readonly kind: RegistryKind) {
    this.label = kind === 'prompt' ? 'Prompt' : 'Skill';
  }

  /** Creates an object at version 1 with its aliases. Throws `name_taken`. */
  async create(actor: Actor, input: NewObject): Promise<ObjectAtVersion> {
    return this.db.transaction(async (tx) => {
      const taken = await tx.query('select 1 from registry_objects where kind = $1 and workspace_id = $2 and name = $3', [this.kind, actor.workspaceId, input.name]);
      if (taken.rows.length) throw new RegistryError('name_taken', `A ${this.kind} named '${input.name}' already exists in this workspace`);
      await tx.query(
        `insert into registry_objects (id, kind, workspace_id, created_by, name, title, description, sharing_scope, workspace_relation, latest_version, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $10)`,
        [input.id, this.kind, actor.workspaceId, actor.userId, input.name, input.title ?? null, input.description ?? null, input.sharingScope, input.workspaceRelation, input.now],
      );
      await tx.query('insert into registry_versions (object_id, version, definition, notes, created_at) values ($1, 1, $2, $3, $4)', [input.id, JSON.stringify(input.definition), input.notes || null, input.now]);
      await putAliases(tx, input.id, 1, input.aliases);
      return this.read(tx, input.id, 1);
    });
  }

  /** The object at the latest version, a version number or an alias. Throws `not_found`, `version_not_found`, `alias_not_found`. */
  async get(actor: Actor, id: string, selector: VersionSelector = null): Promise<ObjectAtVersion> {
    const object = await this.visible(this.db, actor, id);
    let version = object.latest_version;
    if (selector && 'version' in selector) {
      version = selector.version;
    } else if (selector) {
      const { rows } = await this.db.query<{ version: number }>('select version from registry_aliases where object_id = $1 and alias = $2', [id, selector.alias]);
      if (!rows[0]) throw new RegistryError('alias_not_found', `Alias '${selector.alias}' of ${this.kind} '${id}' not found`);
      version = rows[0].version;
    }
    return this.read(this.db, id, version);
  }

  /** One page of the objects the actor can see, sorted; `next` is set when more follow. */
  async list(actor: Actor, request: ListRequest): Promise<{ items: ObjectAtVersion[]; next: ListCursor | null }> {
    const key = SORT_KEYS[request.sort.field];
    const dir = request.sort.direction;
    const params: unknown[] = [this.kind, actor.workspaceId, actor.userId];
    let versionJoin = 'join registry_versions v on v.object_id = o.id and v.version = o.latest_version';
    if (request.alias !== undefined) {
      params.push(request.alias);
      versionJoin = `join registry_aliases al on al.object_id = o.id and al.alias = $${params.length}
        join registry_versions v on v.object_id = o.id and v.version = al.version`;
    }
    let after = '';
    if (request.after) {
      params.push(request.after.key, request.after.id);
      after = `and (${key}, o.id collate "C") ${dir === 'asc' ? '>' : '<'} ($${params.length - 1}::text collate "C", $${params.length}::text collate "C")`;
    }
    params.push(request.limit + 1);
    const { rows } = await this.db.query<ObjectRow & VersionRow & { sort_key: string }>(
      `select o.*, ${VERSION_COLUMNS}, ${key} as sort_key
         from registry_objects o ${versionJoin}
        where o.kind = $1 and o.workspace_id = $2 and (o.sharing_scope = 'workspace' or o.created_by = $3) ${after}
        order by ${key} ${dir}, o.id collate "C" ${dir}
        limit $${params.length}`,
      params,
    );
    const page = rows.slice(0, request.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((r) => ({ object: toObject(r), version: toVersion(r) })),
      next: rows.length > request.limit && last ? { key: last.sort_key, id: last.id } : null,
    };
  }

  /** Changes title, description, sharing (an empty patch changes nothing, not even `updatedAt`). Throws `not_found`, `forbidden`. */
  async updateMetadata(actor: Actor, id: string, patch: MetadataPatch, now: string): Promise<ObjectAtVersion> {
    return this.db.transaction(async (tx) => {
      const object = await this.visible(tx, actor, id);
      const sharing = patch.sharingScope !== undefined || patch.workspaceRelation !== undefined;
      if (sharing && object.created_by !== actor.userId) throw new RegistryError('forbidden', `Only the creator of ${this.kind} '${id}' can change how it is shared`);
      if (!sharing) this.checkWriter(actor, object);
      if (!sharing && patch.title === undefined && patch.description === undefined) return this.read(tx, id, object.latest_version);
      await tx.query(
        `update registry_objects set
           title = case when $2 then $3 else title end,
           description = case when $4 then $5 else description end,
           sharing_scope = coalesce($6, sharing_scope),
           workspace_relation = coalesce($7, workspace_relation),
           updated_at = $8
         where id = $1`,
        [id, patch.title !== undefined, patch.title || null, patch.description !== undefined, patch.description || null, patch.sharingScope ?? null, patch.workspaceRelation ?? null, now],
      );
      return this.read(tx, id, object.latest_version);
    });
  }

  /** Deletes the object with its versions and aliases. Throws `not_found`, `forbidden`. */
  async delete(actor: Actor, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const object = await this.visible(tx, actor, id);
      if (object.created_by !== actor.userId) throw new RegistryError('forbidden', `Only the creator of ${this.kind} '${id}' can delete it`);
      await tx.query('delete from registry_objects where id = $1', [id]);
    });
  }

  /** Every version, newest first. Throws `not_found`. */
  async listVersions(actor: Actor, id: string): Promise<VersionRecord[]> {
    await this.visible(this.db, actor, id);
    const { rows } = await this.db.query<VersionRow>(`select ${VERSION_COLUMNS} from registry_versions v where v.object_id = $1 order by v.version desc`, [id]);
    return rows.map(toVersion);
  }

  /**
   * Adds a version after the latest, unless its definition equals the latest's: then no version is
   * made and the latest is answered with `deduplicated: true` (the requested aliases still move onto
   * it; its notes are kept). Throws `not_found`, `forbidden`.
   */
  async createVersion(actor: Actor, id: string, input: { definition: unknown; notes?: string | null; aliases: string[]; now: string }): Promise<{ version: number; deduplicated: boolean }> {
    return this.db.transaction(async (tx) => {
      const object = await this.visible(tx, actor, id);
      this.checkWriter(actor, object);
      const latest = object.latest_version;
      const same = await tx.query('select 1 from registry_versions where object_id = $1 and version = $2 and definition = $3::jsonb', [id, latest, JSON.stringify(input.definition)]);
      if (same.rows.length) {
        if (input.aliases.length) {
          await putAliases(tx, id, latest, input.aliases);
          await tx.query('update registry_objects set updated_at = $2 where id = $1', [id, input.now]);
        }
        return { version: latest, deduplicated: true };
      }
      const version = latest + 1;
      await tx.query('insert into registry_versions (object_id, version, definition, notes, created_at) values ($1, $2, $3, $4, $5)', [id, version, JSON.stringify(input.definition), input.notes || null, input.now]);
      await putAliases(tx, id, version, input.aliases);
      await tx.query('update registry_objects set latest_version = $2, updated_at = $3 where id = $1', [id, version, input.now]);
      return { version, deduplicated: false };
    });
  }

  /**
   * Changes a version's notes (`null` or `""` clears them) and, when `aliases` is given, makes it exactly
   * the version's alias set: listed aliases move here, its other aliases are removed.
   * Throws `not_found`, `version_not_found`, `forbidden`.
   */
  async updateVersion(actor: Actor, id: string, version: number, patch: { notes?: string | null; aliases?: string[]; now: string }): Promise<ObjectAtVersion> {
    return this.db.transaction(async (tx) => {
      const object = await this.visible(tx, actor, id);
      await this.read(tx, id, version);
      this.checkWriter(actor, object);
      if (patch.notes === undefined && patch.aliases === undefined) return this.read(tx, id, version);
      if (patch.notes !== undefined) await tx.query('update registry_versions set notes = $3 where object_id = $1 and version = $2', [id, version, patch.notes || null]);
      if (patch.aliases !== undefined) {
        await tx.query('delete from registry_aliases where object_id = $1 and version = $2 and not (alias = any($3::text[]))', [id, version, patch.aliases]);
        await putAliases(tx, id, version, patch.aliases);
      }
      await tx.query('update registry_objects set updated_at = $2 where id = $1', [id, patch.now]);
      return this.read(tx, id, version);
    });
  }

  /** The object row when the actor may see it; else `not_found`. */
  private async visible(q: Queryable, actor: Actor, id: string): Promise<ObjectRow> {
    const { rows } = await q.query<ObjectRow>(
      `select * from registry_objects where id = $1 and kind = $2 and workspace_id = $3 and (sharing_scope = 'workspace' or created_by = $4)`,
      [id, this.kind, actor.workspaceId, actor.userId],
    );
    if (!rows[0]) throw new RegistryError('not_found', `${this.label} '${id}' not found`);
    return rows[0];
  }

  private checkWriter(actor: Actor, object: ObjectRow): void {
    if (object.created_by === actor.userId || object.workspace_relation === 'writer') return;
    throw new RegistryError('forbidden', `${this.label} '${object.id}' is shared with the workspace read-only`);
  }

  private async read(q: Queryable, id: string, version: number): Promise<ObjectAtVersion> {
    const { rows } = await q.query<ObjectRow & VersionRow>(
      `select o.*, ${VERSION_COLUMNS} from registry_objects o join registry_versions v on v.object_id = o.id and v.version = $2 where o.id = $1`,
      [id, version],
    );
    if (!rows[0]) throw new RegistryError('version_not_found', `Version ${version} of ${this.kind} '${id}' not found`);
    return { object: toObject(rows[0]), version: toVersion(rows[0]) };
  }
}

/** Points each alias at `version`, moving it from another version of the same object if needed. */
async function putAliases(q: Queryable, id: string, version: number, aliases: readonly string[]): Promise<void> {
  for (const alias of aliases) {
    await q.query(
      `insert into registry_aliases (object_id, alias, version) values ($1, $2, $3)
       on conflict (object_id, alias) do update set version = excluded.version`,
      [id, alias, version],
    );
  }
}
