/**
 * Connectors in the embedded database: the connector records, the per-consumer activation switches and
 * the credentials stored at organization, workspace and user level (tables of migration 1 in migrations.ts).
 *
 * Visibility is decided here, in SQL, so that cursor pages are full pages of what the caller may see:
 * `private` → only its creator; `shared_workspace` → members of its workspace; `shared_org` → everyone
 * in its organization. A connector is *active* for a consumer unless it was deactivated at the
 * consumer's organization, workspace or user level (activating a level removes that level's block).
 */
import type { Db } from '../store/db.js';
import { isUuid } from '../http/ids.js';

/** The three levels a connector is activated and configured at (the API's `consumer_scope`). */
export type ConsumerScope = 'organization' | 'workspace' | 'user';
export const CONSUMER_SCOPES: readonly ConsumerScope[] = ['organization', 'workspace', 'user'];

export type ConnectorVisibility = 'private' | 'shared_workspace' | 'shared_org';

/** Who asks: the ids of the consumer at each level. */
export interface Consumer { organizationId: string; workspaceId: string; userId: string }

export interface AuthHeader { name: string; is_required: boolean; is_secret: boolean }
export interface AuthMethod { method_type: string; headers: AuthHeader[] | null }
export interface GlobalHeader { is_secret: boolean; value: string }

/** Everything a connector row holds (`connectors.record`). Secrets stay here; answers never show them. */
export interface ConnectorRecord {
  id: string;
  name: string;
  title: string | null;
  description: string;
  server: string;
  icon_url: string | null;
  system_prompt: string | null;
  visibility: ConnectorVisibility;
  organization_id: string;
  workspace_id: string;
  creator_id: string;
  /** Organization-level headers sent with every request to the MCP server. */
  headers: Record<string, string> | null;
  global_headers: Record<string, GlobalHeader>;
  auth_methods: AuthMethod[];
  auth_data: { client_id: string; client_secret: string | null } | null;
  oauth2_server_metadata: Record<string, unknown> | null;
  oauth2_server_metadata_url: string | null;
  created_at: string;
  modified_at: string;
}

/** Stored credentials of one consumer (`connector_credentials.record`). */
export interface CredentialRecord {
  name: string;
  title: string | null;
  authentication_type: string;
  is_default: boolean;
  creator_id: string;
  secrets: { headers?: Record<string, string> | null; bearer_token?: string | null; oauth?: Record<string, unknown> | null };
  created_at: string;
  modified_at: string;
}

/** Keyset cursor: the `seq` of the last connector answered (pages go newest first). */
export interface ConnectorCursor { seq: number }

export class ConnectorNameTaken extends Error {}

export interface ConnectorStore {
  create(record: ConnectorRecord): Promise<void>;
  /** By id when `idOrName` is one, else by name in the workspace; visibility is the caller's concern. */
  find(idOrName: string, workspaceId: string): Promise<ConnectorRecord | null>;
  /** Connectors the consumer may see, newest first; `active` filters on the consumer's activation. */
  list(consumer: Consumer, page: { after: ConnectorCursor | null; limit: number; active?: boolean }): Promise<{ items: ConnectorRecord[]; next: ConnectorCursor | null }>;
  /** Replaces the record; throws {@link ConnectorNameTaken} when a rename collides. */
  save(record: ConnectorRecord): Promise<void>;
  delete(id: string): Promise<boolean>;
  setActive(id: string, scope: ConsumerScope, consumerId: string, active: boolean): Promise<void>;
  /** The levels at which the connector is deactivated for this consumer. */
  blockedAt(id: string, consumer: Consumer): Promise<ConsumerScope[]>;
  credentials(id: string, scope: ConsumerScope, consumerId: string): Promise<CredentialRecord[]>;
  putCredential(id: string, scope: ConsumerScope, consumerId: string, credential: CredentialRecord): Promise<void>;
  deleteCredential(id: string, scope: ConsumerScope, consumerId: string, name: string): Promise<boolean>;
  deleteCredentials(id: string, scope: ConsumerScope, consumerId: string): Promise<number>;
  /** Unsharing: drops organization- and workspace-level credentials and switches, and every other user's; the creator's stay. */
  dropSharedState(id: string, creatorId: string): Promise<void>;
}

/** SQL condition (over alias `c`) for the connectors a consumer may see; parameters $1 org, $2 workspace, $3 user. */
const VISIBLE = `(
  (c.record->>'visibility' = 'shared_org' and c.record->>'organization_id' = $1)
  or (c.record->>'visibility' = 'shared_workspace' and c.workspace_id = $2)
  or (c.record->>'visibility' = 'private' and c.record->>'creator_id' = $3))`;

/** SQL condition: deactivated at one of the consumer's levels (same parameters). */
const BLOCKED = `exists (select 1 from connector_activations a where a.connector_id = c.id and not a.active and (
  (a.scope = 'organization' and a.consumer_id = $1) or (a.scope = 'workspace' and a.consumer_id = $2) or (a.scope = 'user' and a.consumer_id = $3)))`;

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

export function createConnectorStore(db: Db): ConnectorStore {
  return {
    async create(record) {
      try {
        await db.query('insert into connectors (id, workspace_id, name, record) values ($1, $2, $3, $4)', [record.id, record.workspace_id, record.name, record]);
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConnectorNameTaken(record.name);
        throw err;
      }
    },

    async find(idOrName, workspaceId) {
      const { rows } = isUuid(idOrName)
        ? await db.query<{ record: ConnectorRecord }>('select record from connectors where id = $1', [idOrName.toLowerCase()])
        : await db.query<{ record: ConnectorRecord }>('select record from connectors where workspace_id = $1 and name = $2', [workspaceId, idOrName]);
      return rows[0]?.record ?? null;
    },

    async list(consumer, page) {
      const params: unknown[] = [consumer.organizationId, consumer.workspaceId, consumer.userId, page.limit + 1];
      let where = VISIBLE;
      if (page.after) {
        params.push(page.after.seq);
        where += ` and c.seq < $${params.length}`;
      }
      if (page.active !== undefined) where += page.active ? ` and not ${BLOCKED}` : ` and ${BLOCKED}`;
      const { rows } = await db.query<{ record: ConnectorRecord; seq: number }>(
        `select c.record, c.seq::int as seq from connectors c where ${where} order by c.seq desc limit $4`, params);
      const items = rows.slice(0, page.limit);
      return { items: items.map((r) => r.record), next: rows.length > page.limit ? { seq: Number(items[items.length - 1].seq) } : null };
    },

    async save(record) {
      try {
        await db.query('update connectors set name = $2, workspace_id = $3, record = $4 where id = $1', [record.id, record.name, record.workspace_id, record]);
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConnectorNameTaken(record.name);
        throw err;
      }
    },

    async delete(id) {
      const { affectedRows } = await db.query('delete from connectors where id = $1', [id]);
      return (affectedRows ?? 0) > 0;
    },

    async setActive(id, scope, consumerId, active) {
      await db.query(
        `insert into connector_activations (connector_id, scope, consumer_id, active) values ($1, $2, $3, $4)
         on conflict (connector_id, scope, consumer_id) do update set active = excluded.active`, [id, scope, consumerId, active]);
    },

    async blockedAt(id, consumer) {
      const { rows } = await db.query<{ scope: ConsumerScope }>(
        `select scope from connector_activations where connector_id = $1 and not active and (
          (scope = 'organization' and consumer_id = $2) or (scope = 'workspace' and consumer_id = $3) or (scope = 'user' and consumer_id = $4))`,
        [id, consumer.organizationId, consumer.workspaceId, consumer.userId]);
      return CONSUMER_SCOPES.filter((s) => rows.some((r) => r.scope === s));
    },

    async credentials(id, scope, consumerId) {
      const { rows } = await db.query<{ record: CredentialRecord }>(
        `select record from connector_credentials where connector_id = $1 and scope = $2 and consumer_id = $3 order by record->>'created_at', name`,
        [id, scope, consumerId]);
      return rows.map((r) => r.record);
    },

    async putCredential(id, scope, consumerId, credential) {
      await db.transaction(async (tx) => {
        if (credential.is_default) {
          // One default per auth method and consumer: promoting this one demotes the previous default.
          await tx.query(
            `update connector_credentials set record = jsonb_set(record, '{is_default}', 'false')
             where connector_id = $1 and scope = $2 and consumer_id = $3 and name <> $4 and record->>'authentication_type' = $5`,
            [id, scope, consumerId, credential.name, credential.authentication_type]);
        }
        await tx.query(
          `insert into connector_credentials (connector_id, scope, consumer_id, name, record) values ($1, $2, $3, $4, $5)
           on conflict (connector_id, scope, consumer_id, name) do update set record = excluded.record`,
          [id, scope, consumerId, credential.name, credential]);
      });
    },

    async deleteCredential(id, scope, consumerId, name) {
      const { affectedRows } = await db.query(
        'delete from connector_credentials where connector_id = $1 and scope = $2 and consumer_id = $3 and name = $4', [id, scope, consumerId, name]);
      return (affectedRows ?? 0) > 0;
    },

    async deleteCredentials(id, scope, consumerId) {
      const { affectedRows } = await db.query(
        'delete from connector_credentials where connector_id = $1 and scope = $2 and consumer_id = $3', [id, scope, consumerId]);
      return affectedRows ?? 0;
    },

    async dropSharedState(id, creatorId) {
      await db.transaction(async (tx) => {
        for (const table of ['connector_credentials', 'connector_activations']) {
          await tx.query(
            `delete from ${table} where connector_id = $1 and (scope <> 'user' or consumer_id <> $2)`, [id, creatorId]);
        }
      });
    },
  };
}
