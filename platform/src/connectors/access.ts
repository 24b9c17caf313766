/**
 * Who may see, manage and use a connector, what a connector looks like to a caller, and which headers
 * the platform sends to its MCP server on the caller's behalf.
 *
 * Rules (the platform's documented behaviour where there is one, our choice where it is silent):
 * - Seeing: `private` → its creator only; `shared_workspace` → members of its workspace; `shared_org` →
 *   everyone in its organization. A connector the caller cannot see is answered 404, like an unknown one.
 * - Managing (update, delete, organization/workspace credentials and activation): its creator, or a
 *   holder of the workspace permission `ShareConnectorToWorkspace`; anyone else who can see it gets 403.
 *   User-level credentials and activation are each user's own business.
 * - Sharing and unsharing: only the creator, and only while holding `ShareConnectorToWorkspace` (403 otherwise).
 * - Headers sent to the MCP server: the connector's `headers` and `global_headers`, then the chosen
 *   credentials (user level first, then workspace, then organization; by name when one is given, else
 *   the default), then a conversation tool's own `authorization`.
 */
import type { Connector, ConnectorAuthMethod, ConnectorConsumerType, ConnectorCredentials } from 'parley-kit/types';
import type { Caller } from '../http/caller.js';
import type { PlatformContext } from '../http/context.js';
import { forbidden, notFound } from '../http/errors.js';
import type { McpTarget } from './mcp-session.js';
import {
  CONSUMER_SCOPES, type ConnectorRecord, type ConnectorStore, type Consumer, type ConsumerScope, type CredentialRecord,
} from './store.js';

/** The workspace permission that sharing, unsharing and managing shared connectors require. */
export const SHARE_PERMISSION = 'ShareConnectorToWorkspace';

/** How the API names the levels in answers (`ConsumerType`). */
const CONSUMER_TYPE: Record<ConsumerScope, ConnectorConsumerType> = { organization: 'org', workspace: 'workspace', user: 'user' };

export const consumerOf = (caller: Caller): Consumer => ({ organizationId: caller.organizationId, workspaceId: caller.workspaceId, userId: caller.userId });

/** The caller's id at a level (their organization, workspace or own user id). */
export function consumerId(caller: Caller, scope: ConsumerScope): string {
  return scope === 'organization' ? caller.organizationId : scope === 'workspace' ? caller.workspaceId : caller.userId;
}

export function canSee(record: ConnectorRecord, caller: Caller): boolean {
  switch (record.visibility) {
    case 'shared_org': return record.organization_id === caller.organizationId;
    case 'shared_workspace': return record.workspace_id === caller.workspaceId;
    default: return record.creator_id === caller.userId;
  }
}

/** The connector by id or name, if the caller may see it; 404 otherwise. */
export async function visibleConnector(store: ConnectorStore, idOrName: string, caller: Caller): Promise<ConnectorRecord> {
  const record = await store.find(idOrName, caller.workspaceId);
  if (!record || !canSee(record, caller)) throw notFound(`Connector '${idOrName}' not found`);
  return record;
}

/** 403 unless the caller created the connector or holds the share permission. */
export async function requireManager(directory: PlatformContext['directory'], record: ConnectorRecord, caller: Caller, action: string): Promise<void> {
  if (record.creator_id === caller.userId) return;
  if (await directory.hasWorkspacePermission(caller, SHARE_PERMISSION)) return;
  throw forbidden(`Only the creator of connector '${record.name}' or a holder of the ${SHARE_PERMISSION} permission can ${action}`);
}

/** 403 unless the caller created the connector and holds the share permission. */
export async function requireSharer(directory: PlatformContext['directory'], record: ConnectorRecord, caller: Caller, action: string): Promise<void> {
  if (record.creator_id !== caller.userId) throw forbidden(`Only the creator of connector '${record.name}' can ${action} it`);
  if (!(await directory.hasWorkspacePermission(caller, SHARE_PERMISSION))) {
    throw forbidden(`${action[0].toUpperCase()}${action.slice(1)} connector '${record.name}' requires the ${SHARE_PERMISSION} workspace permission`);
  }
}

/** Credentials the caller can use, most specific level first. */
async function usableCredentials(store: ConnectorStore, record: ConnectorRecord, caller: Caller): Promise<Array<CredentialRecord & { scope: ConsumerScope }>> {
  const out: Array<CredentialRecord & { scope: ConsumerScope }> = [];
  for (const scope of [...CONSUMER_SCOPES].reverse()) {
    for (const c of await store.credentials(record.id, scope, consumerId(caller, scope))) out.push({ ...c, scope });
  }
  return out;
}

const MASK = '********';

/** The connector as the API answers it (`MCPConnector`), seen by this caller; secrets are never shown. */
export async function presentConnector(
  store: ConnectorStore, record: ConnectorRecord, caller: Caller, options: { withCredentials?: boolean } = {},
): Promise<Connector> {
  const blocked = await store.blockedAt(record.id, consumerOf(caller));
  const credentials = await usableCredentials(store, record, caller);
  const globalHeaders = Object.fromEntries(Object.entries(record.global_headers).map(([k, v]) => [k, { is_secret: v.is_secret, value: v.is_secret ? MASK : v.value }]));
  const owner: Pick<Connector, 'owner_type' | 'owner_id'> = record.visibility === 'shared_org'
    ? { owner_type: 'org', owner_id: record.organization_id }
    : record.visibility === 'shared_workspace'
      ? { owner_type: 'workspace', owner_id: record.workspace_id }
      : { owner_type: 'user', owner_id: record.creator_id };
  return {
    id: record.id,
    name: record.name,
    title: record.title,
    description: record.description,
    created_at: record.created_at,
    modified_at: record.modified_at,
    server: record.server,
    icon_url: record.icon_url,
    ...owner,
    visibility: record.visibility,
    creator_id: record.creator_id,
    system_prompt: record.system_prompt,
    supported_auth_methods: record.auth_methods.map((m): ConnectorAuthMethod => ({
      method_type: m.method_type,
      headers: m.headers,
      global_headers: globalHeaders,
      has_default_credentials: m.method_type === 'none' || credentials.some((c) => c.scope !== 'user' && c.is_default && c.authentication_type === m.method_type),
      ...(m.method_type === 'oauth2'
        ? { grant_type: 'authorization_code' as const, oauth2_server_metadata: record.oauth2_server_metadata }
        : {}),
    })),
    connection_credentials: options.withCredentials ? credentials.map((c) => credentialView(c, c.scope)) : null,
    active: blocked.length === 0,
    blocked_by: blocked.map((s) => CONSUMER_TYPE[s]),
    private_tool_execution: false,
    mistral: false,
    is_authenticated: record.auth_methods.some((m) => m.method_type === 'none') || credentials.length > 0,
    tools: null,
    protocol: 'mcp',
  };
}

/** One stored credential as answered (`AuthenticationConfiguration`): name, type, level, never the secret. */
export function credentialView(c: CredentialRecord, scope: ConsumerScope): ConnectorCredentials {
  return {
    name: c.name,
    title: c.title,
    authentication_type: c.authentication_type,
    scope: CONSUMER_TYPE[scope],
    status: null,
    is_default: c.is_default,
    creator_id: c.creator_id,
  };
}

/**
 * Where to reach the connector's MCP server for this caller, with the headers to send. `credentialsName`
 * picks stored credentials by name (404 when the caller has none by that name).
 */
export async function mcpTarget(
  store: ConnectorStore, record: ConnectorRecord, caller: Caller,
  options: { credentialsName?: string | null; authorization?: string | null } = {},
): Promise<McpTarget> {
  // Header names are case-insensitive: keep one spelling so a later level replaces an earlier one.
  const headers: Record<string, string> = {};
  const set = (entries: Record<string, string>) => { for (const [k, v] of Object.entries(entries)) headers[k.toLowerCase()] = v; };
  set(record.headers ?? {});
  set(Object.fromEntries(Object.entries(record.global_headers).map(([k, h]) => [k, h.value])));
  const credentials = await usableCredentials(store, record, caller);
  const chosen = options.credentialsName
    ? credentials.find((c) => c.name === options.credentialsName)
    : credentials.find((c) => c.is_default) ?? credentials[0];
  if (options.credentialsName && !chosen) throw notFound(`Credentials '${options.credentialsName}' not found for connector '${record.name}'`);
  if (chosen) {
    set(chosen.secrets.headers ?? {});
    const token = chosen.secrets.bearer_token ?? (typeof chosen.secrets.oauth?.access_token === 'string' ? chosen.secrets.oauth.access_token : null);
    if (token) headers.authorization = `Bearer ${token}`;
  }
  if (options.authorization) headers.authorization = `Bearer ${options.authorization}`;
  return { name: record.name, url: record.server, headers };
}
