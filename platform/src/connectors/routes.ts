/**
 * Connectors API (`/v1/connectors…`): MCP servers the platform calls on the caller's behalf, as the public
 * API and SDK `@mistralai/mistralai` 2.7.0 (`beta.connectors.*`) expect.
 *
 * | route | answer |
 * |---|---|
 * | `POST /v1/connectors` | 201 Connector |
 * | `GET /v1/connectors?page_size&cursor&active` (`query_filters={"active":…}` too) | 200 `{items, pagination:{page_size, next_cursor}}` |
 * | `GET /v1/connectors/{id_or_name}?fetch_user_data` | 200 Connector |
 * | `PATCH /v1/connectors/{id}` | 200 Connector |
 * | `DELETE /v1/connectors/{id}` | 200 `{message}` |
 * | `GET /v1/connectors/{id_or_name}/auth_url` | 200 `{auth_url, ttl}` (400 without an OAuth2 method) |
 * | `PUT`/`DELETE /v1/connectors/{id}/share`, `…/organization/share` | 200 `{message}` |
 * | `POST /v1/connectors/{id}/{scope}/activate`, `…/deactivate` | 200 `{message}` |
 * | `GET /v1/connectors/{id_or_name}/tools?page&page_size&pretty&credentials_name` | 200 MCPTool[] (live from the server) |
 * | `POST /v1/connectors/{id_or_name}/tools/{tool}/call?credentials_name` | 200 `{content, metadata}` |
 * | `GET /v1/connectors/{id_or_name}/authentication_methods` | 200 PublicAuthenticationMethod[] |
 * | `GET`/`POST`/`PATCH /v1/connectors/{id_or_name}/{scope}/credentials` | 200 `{credentials}` / `{message}` |
 * | `DELETE /v1/connectors/{id_or_name}/{scope}/credentials/{name}`, `DELETE …/user/credentials` | 200 `{message}` |
 *
 * Sharing (the effects on connections, our reading of the API's descriptions):
 * - share (`PUT …/share`): a private connector becomes `shared_workspace`, owned by the workspace: every
 *   member sees it, can list and call its tools and can add it to conversations; credentials kept.
 * - unshare (`DELETE …/share`): back to `private`, owned by the creator. Organization- and workspace-level
 *   credentials and activation switches, and every other member's, are removed; the creator's are kept.
 *   Other members no longer see it, so their conversations stop offering its tools.
 * - organization share/unshare: the same with `shared_org` (everyone in the organization).
 * - deactivate at a level hides the connector's tools from conversations of consumers at that level
 *   (its organization, its workspace, or the calling user); activate removes that level's block. The
 *   connector stays visible (with `active:false` and `blocked_by`), and the tools API still works.
 *
 * Errors: 422 `{detail}` for bad input (body, query, a path id that is not a UUID); 404 for an unknown
 * connector, one the caller cannot see, or unknown credentials/tool; 403 for a caller without the right
 * (see connectors/access.ts); 409 for a name already used in the workspace; 502/504 when the MCP server
 * cannot be reached or fails.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ConnectorPage, MessageResponse } from 'parley-kit/types';
import { callerOf, type Caller } from '../http/caller.js';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { badRequest, genericError, invalidField, notFound } from '../http/errors.js';
import { isoNow } from '../http/ids.js';
import { queryInt, nullable } from '../http/schemas.js';
import { pathUuid, readJson, validate } from '../http/validation.js';
import {
  SHARE_PERMISSION, consumerId, consumerOf, credentialView, mcpTarget, presentConnector, requireManager, requireSharer, visibleConnector,
} from './access.js';
import { callMcpTool, listMcpTools } from './mcp-session.js';
import {
  ConnectorNameTaken, createConnectorStore, type AuthMethod, type ConnectorRecord, type ConnectorStore, type ConsumerScope, type CredentialRecord,
} from './store.js';
import { parseJsonDocument } from '../http/input-guard.js';

// ---------------------------------------------------------------- request schemas


const isHttpUrl = (s: string) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};
const HttpUrl = z.string().refine(isHttpUrl, 'URL should be an absolute http or https URL');
const ConnectorName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Name should be 1 to 64 letters, digits, underscores or dashes');
const AuthHeaderSchema = z.object({ name: z.string().min(1), is_required: z.boolean().default(true), is_secret: z.boolean().default(true) });
const AuthMethodSchema = z.looseObject({ method_type: z.enum(['oauth2', 'bearer', 'none']), headers: nullable(z.array(AuthHeaderSchema)) });
const OAuthMetadataSchema = z.looseObject({ issuer: HttpUrl, authorization_endpoint: HttpUrl, token_endpoint: HttpUrl });
const GlobalHeadersSchema = z.record(z.string().min(1), z.object({ is_secret: z.boolean().default(true), value: z.string() }));

const CreateConnectorSchema = z.object({
  protocol: z.literal('mcp', { message: "Only protocol 'mcp' can be created through the public API" }).optional(),
  name: ConnectorName,
  title: nullable(z.string()),
  description: z.string(),
  icon_url: nullable(z.string()),
  visibility: z.enum(['shared_org', 'shared_workspace', 'private']).default('private'),
  server: HttpUrl,
  headers: nullable(z.record(z.string().min(1), z.string())),
  global_headers: GlobalHeadersSchema.optional(),
  auth_data: nullable(z.object({ client_id: z.string(), client_secret: nullable(z.string()) })),
  oauth2_server_metadata: nullable(OAuthMetadataSchema),
  oauth2_server_metadata_url: nullable(HttpUrl),
  auth_methods: nullable(z.array(AuthMethodSchema)),
  system_prompt: nullable(z.string()),
});

const UpdateConnectorSchema = z.object({
  protocol: z.literal('mcp', { message: "Only 'mcp' connectors can be updated through the public API" }).optional(),
  name: nullable(ConnectorName),
  title: nullable(z.string()),
  description: nullable(z.string()),
  icon_url: nullable(z.string()),
  system_prompt: nullable(z.string()),
  server: nullable(HttpUrl),
  auth_methods: nullable(z.array(AuthMethodSchema.extend({ global_headers: GlobalHeadersSchema.optional(), oauth2_server_metadata: nullable(OAuthMetadataSchema) }))),
});

const CredentialsSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'Name should be 1 to 64 letters, digits, dots, underscores or dashes'),
  title: nullable(z.string()),
  is_default: nullable(z.boolean()),
  credentials: nullable(z.object({
    oauth: nullable(z.looseObject({ access_token: z.string().min(1) })),
    headers: nullable(z.record(z.string().min(1), z.string())),
    bearer_token: nullable(z.string().min(1)),
    github_installation_id: nullable(z.string()),
  })),
});

const CallToolSchema = z.object({ arguments: z.record(z.string(), z.unknown()).optional() });

const queryBool = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { message: 'Input should be a valid boolean, unable to interpret input' })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));
const ScopeSchema = z.enum(['user', 'workspace', 'organization']);
const AuthTypeSchema = z.enum(['oauth2', 'bearer', 'none', 'github_app', 'slack_app']);

const ListQuerySchema = z.object({
  page_size: queryInt(100, 1, 1000),
  cursor: z.string().optional(),
  active: queryBool.optional(),
  query_filters: z.string().optional(),
});
const ToolsQuerySchema = z.object({
  page: queryInt(1, 1),
  page_size: queryInt(100, 1, 1000),
  refresh: queryBool.optional(),
  pretty: queryBool.optional(),
  credentials_name: z.string().optional(),
});
const CredentialsQuerySchema = z.object({ auth_type: AuthTypeSchema.optional(), fetch_default: queryBool.optional() });
const AuthUrlQuerySchema = z.object({
  app_return_url: z.string().optional(),
  method_type: AuthTypeSchema.optional(),
  credentials_name: z.string().optional(),
  credentials_title: z.string().optional(),
  github_installation_link: queryBool.optional(),
});

// ---------------------------------------------------------------- helpers

const message = (text: string): MessageResponse => ({ message: text });

/** Cursor: base64url of `{"v":1,"s":<seq of the last connector answered>}`. */
function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ v: 1, s: seq })).toString('base64url');
}
function decodeCursor(token: string): number | null {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    return value?.v === 1 && Number.isSafeInteger(value.s) && (value.s as number) > 0 ? (value.s as number) : null;
  } catch {
    return null;
  }
}

function pathScope(c: Context): ConsumerScope {
  return validate(ScopeSchema, c.req.param('consumer_scope'), ['path', 'consumer_scope']);
}

function defaultAuthMethods(body: z.output<typeof CreateConnectorSchema>): AuthMethod[] {
  if (body.auth_methods?.length) return body.auth_methods.map((m) => ({ method_type: m.method_type, headers: m.headers ?? null }));
  if (body.auth_data || body.oauth2_server_metadata || body.oauth2_server_metadata_url) return [{ method_type: 'oauth2', headers: null }];
  return [{ method_type: 'none', headers: null }];
}

/** The auth method a set of credentials is for. */
function credentialType(secrets: CredentialRecord['secrets']): string {
  if (secrets.oauth) return 'oauth2';
  if (secrets.bearer_token) return 'bearer';
  return 'none';
}

async function save(store: ConnectorStore, record: ConnectorRecord, create: boolean): Promise<void> {
  try {
    if (create) await store.create(record);
    else await store.save(record);
  } catch (err) {
    if (err instanceof ConnectorNameTaken) {
      throw genericError(409, `A connector named '${record.name}' already exists in this workspace`, 'invalid_request_error', 'conflict', 'name');
    }
    throw err;
  }
}

// ---------------------------------------------------------------- routes

export function connectorRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const store = createConnectorStore(ctx.db);
  const maxJson = () => ctx.limits.maxJsonBytes;

  /** Organization/workspace levels need a manager; the user level is each caller's own. */
  const requireScopeRight = (record: ConnectorRecord, caller: Caller, scope: ConsumerScope, action: string) =>
    scope === 'user' ? Promise.resolve() : requireManager(ctx.directory, record, caller, `${action} at the ${scope} level`);

  app.post('/', async (c) => {
    const caller = callerOf(c);
    const body = await readJson(c, CreateConnectorSchema, maxJson());
    if (body.oauth2_server_metadata && body.oauth2_server_metadata_url) {
      throw invalidField(['body', 'oauth2_server_metadata_url'], 'oauth2_server_metadata and oauth2_server_metadata_url are mutually exclusive', 'value_error', body.oauth2_server_metadata_url);
    }
    if (body.visibility !== 'private' && !(await ctx.directory.hasWorkspacePermission(caller, SHARE_PERMISSION))) {
      throw genericError(403, `Creating a '${body.visibility}' connector requires the ${SHARE_PERMISSION} workspace permission`, 'invalid_request_error', 'forbidden', 'visibility');
    }
    const now = isoNow();
    const record: ConnectorRecord = {
      id: randomUUID(),
      name: body.name,
      title: body.title ?? null,
      description: body.description,
      server: body.server,
      icon_url: body.icon_url ?? null,
      system_prompt: body.system_prompt ?? null,
      visibility: body.visibility,
      organization_id: caller.organizationId,
      workspace_id: caller.workspaceId,
      creator_id: caller.userId,
      headers: body.headers ?? null,
      global_headers: body.global_headers ?? {},
      auth_methods: defaultAuthMethods(body),
      auth_data: body.auth_data ? { client_id: body.auth_data.client_id, client_secret: body.auth_data.client_secret ?? null } : null,
      oauth2_server_metadata: body.oauth2_server_metadata ?? null,
      oauth2_server_metadata_url: body.oauth2_server_metadata_url ?? null,
      created_at: now,
      modified_at: now,
    };
    await save(store, record, true);
    return c.json(await presentConnector(store, record, caller), 201);
  });

  app.get('/', async (c) => {
    const caller = callerOf(c);
    const q = validate(ListQuerySchema, c.req.query(), ['query']);
    let active = q.active;
    if (q.query_filters !== undefined && q.query_filters !== '') {
      let filters: unknown;
      try {
        filters = parseJsonDocument(q.query_filters);
      } catch {
        throw invalidField(['query', 'query_filters'], 'Invalid JSON', 'json_invalid', q.query_filters);
      }
      const parsed = validate(z.object({ active: nullable(z.boolean()) }), filters, ['query', 'query_filters']);
      if (parsed.active != null) active = parsed.active;
    }
    let after: number | null = null;
    if (q.cursor) {
      after = decodeCursor(q.cursor);
      if (after === null) throw invalidField(['query', 'cursor'], 'Invalid cursor', 'value_error', q.cursor);
    }
    const page = await store.list(consumerOf(caller), { after: after === null ? null : { seq: after }, limit: q.page_size, active });
    const items = await Promise.all(page.items.map((r) => presentConnector(store, r, caller)));
    const answer: ConnectorPage = { items, pagination: { page_size: q.page_size, next_cursor: page.next ? encodeCursor(page.next.seq) : null } };
    return c.json(answer, 200);
  });

  app.get('/:connector_id_or_name', async (c) => {
    const caller = callerOf(c);
    const q = validate(z.object({ fetch_user_data: queryBool.optional(), fetch_customer_data: queryBool.optional() }), c.req.query(), ['query']);
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    return c.json(await presentConnector(store, record, caller, { withCredentials: q.fetch_user_data === true }), 200);
  });

  app.patch('/:connector_id', async (c) => {
    const caller = callerOf(c);
    const id = pathUuid(c, 'connector_id');
    const body = await readJson(c, UpdateConnectorSchema, maxJson());
    const record = await visibleConnector(store, id, caller);
    await requireManager(ctx.directory, record, caller, 'update it');
    const next: ConnectorRecord = { ...record, modified_at: isoNow() };
    if (body.name != null) next.name = body.name;
    if (body.description != null) next.description = body.description;
    if (body.server != null) next.server = body.server;
    if (body.title !== undefined) next.title = body.title;
    if (body.icon_url !== undefined) next.icon_url = body.icon_url;
    if (body.system_prompt !== undefined) next.system_prompt = body.system_prompt;
    for (const m of body.auth_methods ?? []) {
      // Adds the method or updates the one of the same type.
      const method: AuthMethod = { method_type: m.method_type, headers: m.headers ?? null };
      next.auth_methods = [...next.auth_methods.filter((x) => x.method_type !== m.method_type), method];
      if (m.global_headers) next.global_headers = { ...next.global_headers, ...m.global_headers };
      if (m.oauth2_server_metadata) next.oauth2_server_metadata = m.oauth2_server_metadata;
    }
    await save(store, next, false);
    return c.json(await presentConnector(store, next, caller), 200);
  });

  app.delete('/:connector_id', async (c) => {
    const caller = callerOf(c);
    const record = await visibleConnector(store, pathUuid(c, 'connector_id'), caller);
    await requireManager(ctx.directory, record, caller, 'delete it');
    await store.delete(record.id);
    return c.json(message(`Connector '${record.name}' deleted`), 200);
  });

  app.get('/:connector_id_or_name/auth_url', async (c) => {
    const caller = callerOf(c);
    const q = validate(AuthUrlQuerySchema, c.req.query(), ['query']);
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    if (q.method_type && q.method_type !== 'oauth2') {
      throw badRequest(`Authentication method '${q.method_type}' has no authorization URL; store its secret with POST /v1/connectors/${record.id}/user/credentials`, 'method_type');
    }
    const endpoint = record.oauth2_server_metadata?.authorization_endpoint;
    if (!record.auth_methods.some((m) => m.method_type === 'oauth2') || typeof endpoint !== 'string') {
      throw badRequest(`Connector '${record.name}' has no OAuth2 authentication method with an authorization endpoint (give oauth2_server_metadata when creating it)`, 'method_type');
    }
    const url = new URL(endpoint);
    url.searchParams.set('response_type', 'code');
    if (record.auth_data?.client_id) url.searchParams.set('client_id', record.auth_data.client_id);
    if (q.app_return_url) url.searchParams.set('redirect_uri', q.app_return_url);
    const scope = record.oauth2_server_metadata?.x_scope;
    if (typeof scope === 'string') url.searchParams.set('scope', scope);
    url.searchParams.set('state', randomBytes(16).toString('base64url'));
    return c.json({ auth_url: url.toString(), ttl: 600 }, 200);
  });

  for (const [path, visibility, label] of [
    ['/:connector_id/share', 'shared_workspace', 'workspace'],
    ['/:connector_id/organization/share', 'shared_org', 'organization'],
  ] as const) {
    app.put(path, async (c) => {
      const caller = callerOf(c);
      const record = await visibleConnector(store, pathUuid(c, 'connector_id'), caller);
      await requireSharer(ctx.directory, record, caller, 'share');
      if (record.visibility === visibility) return c.json(message(`Connector '${record.name}' is already shared with the ${label}`), 200);
      if (record.visibility !== 'private') {
        throw badRequest(`Connector '${record.name}' is shared (${record.visibility}); unshare it before sharing it with the ${label}`);
      }
      await save(store, { ...record, visibility, modified_at: isoNow() }, false);
      return c.json(message(`Connector '${record.name}' shared with the ${label}`), 200);
    });
    app.delete(path, async (c) => {
      const caller = callerOf(c);
      const record = await visibleConnector(store, pathUuid(c, 'connector_id'), caller);
      await requireSharer(ctx.directory, record, caller, 'unshare');
      if (record.visibility !== visibility) throw badRequest(`Connector '${record.name}' is not shared with the ${label}`);
      await save(store, { ...record, visibility: 'private', modified_at: isoNow() }, false);
      await store.dropSharedState(record.id, record.creator_id);
      return c.json(message(`Connector '${record.name}' is private again`), 200);
    });
  }

  for (const action of ['activate', 'deactivate'] as const) {
    app.post(`/:connector_id/:consumer_scope/${action}`, async (c) => {
      const caller = callerOf(c);
      const id = pathUuid(c, 'connector_id');
      const scope = pathScope(c);
      const record = await visibleConnector(store, id, caller);
      await requireScopeRight(record, caller, scope, action);
      await store.setActive(record.id, scope, consumerId(caller, scope), action === 'activate');
      return c.json(message(`Connector '${record.name}' ${action}d for the ${scope}`), 200);
    });
  }

  app.get('/:connector_id_or_name/tools', async (c) => {
    const caller = callerOf(c);
    const q = validate(ToolsQuerySchema, c.req.query(), ['query']);
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    const target = await mcpTarget(store, record, caller, { credentialsName: q.credentials_name });
    const tools = await listMcpTools(target, { signal: c.req.raw.signal });
    const page = tools.slice((q.page - 1) * q.page_size, q.page * q.page_size);
    const out = q.pretty
      ? page.map((t) => ({ name: t.name, description: t.description ?? null, annotations: t.annotations ?? null, inputSchema: t.inputSchema }))
      : page;
    return c.json(out, 200);
  });

  app.post('/:connector_id_or_name/tools/:tool_name/call', async (c) => {
    const caller = callerOf(c);
    const q = validate(z.object({ credentials_name: z.string().optional() }), c.req.query(), ['query']);
    const body = await readJson(c, CallToolSchema, maxJson());
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    const target = await mcpTarget(store, record, caller, { credentialsName: q.credentials_name });
    const name = c.req.param('tool_name');
    const result = await callMcpTool(target, name, body.arguments ?? {}, { signal: c.req.raw.signal });
    if (result === null) throw notFound(`Connector '${record.name}' has no tool '${name}'`);
    return c.json({
      content: result.content,
      metadata: result._meta ? { mcp_meta: result._meta } : null,
      is_error: result.isError === true,
      ...(result.structuredContent ? { structured_content: result.structuredContent } : {}),
    }, 200);
  });

  app.get('/:connector_id_or_name/authentication_methods', async (c) => {
    const caller = callerOf(c);
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    const view = await presentConnector(store, record, caller);
    return c.json(view.supported_auth_methods, 200);
  });

  app.get('/:connector_id_or_name/:consumer_scope/credentials', async (c) => {
    const caller = callerOf(c);
    const scope = pathScope(c);
    const q = validate(CredentialsQuerySchema, c.req.query(), ['query']);
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    const all = await store.credentials(record.id, scope, consumerId(caller, scope));
    const shown = all.filter((cr) => (!q.auth_type || cr.authentication_type === q.auth_type) && (!q.fetch_default || cr.is_default));
    const presets = [...new Set(all.filter((cr) => cr.is_default).map((cr) => cr.authentication_type))];
    return c.json({ credentials: shown.map((cr) => credentialView(cr, scope)), connector_preset_credentials_for_auth: scope === 'user' ? [] : presets }, 200);
  });

  const writeCredentials = (mode: 'upsert' | 'update') => async (c: Context) => {
    const caller = callerOf(c);
    const scope = pathScope(c);
    const body = await readJson(c, CredentialsSchema, maxJson());
    const record = await visibleConnector(store, c.req.param('connector_id_or_name') ?? '', caller);
    await requireScopeRight(record, caller, scope, 'manage credentials');
    const owner = consumerId(caller, scope);
    const existing = await store.credentials(record.id, scope, owner);
    const current = existing.find((cr) => cr.name === body.name);
    if (mode === 'update' && !current) throw notFound(`Credentials '${body.name}' not found for connector '${record.name}' at the ${scope} level`);
    const secrets = body.credentials
      ? { headers: body.credentials.headers ?? null, bearer_token: body.credentials.bearer_token ?? null, oauth: body.credentials.oauth ?? null }
      : current?.secrets ?? {};
    const type = body.credentials ? credentialType(secrets) : current?.authentication_type ?? 'none';
    const sameType = existing.filter((cr) => cr.name !== body.name && cr.authentication_type === type);
    let isDefault: boolean;
    if (current) {
      if (body.is_default === false && current.is_default) {
        throw invalidField(['body', 'is_default'], 'These credentials are the default; promote other credentials first', 'value_error', false);
      }
      isDefault = body.is_default ?? current.is_default;
    } else if (sameType.length === 0) {
      if (body.is_default === false) {
        throw invalidField(['body', 'is_default'], 'The first credentials of an authentication method are its default', 'value_error', false);
      }
      isDefault = true;
    } else {
      isDefault = body.is_default === true;
    }
    const now = isoNow();
    await store.putCredential(record.id, scope, owner, {
      name: body.name,
      title: body.title !== undefined ? body.title : current?.title ?? null,
      authentication_type: type,
      is_default: isDefault,
      creator_id: current?.creator_id ?? caller.userId,
      secrets,
      created_at: current?.created_at ?? now,
      modified_at: now,
    });
    return c.json(message(`Credentials '${body.name}' ${current ? 'updated' : 'created'} for connector '${record.name}' at the ${scope} level`), 200);
  };
  app.post('/:connector_id_or_name/:consumer_scope/credentials', writeCredentials('upsert'));
  app.patch('/:connector_id_or_name/:consumer_scope/credentials', writeCredentials('update'));

  app.delete('/:connector_id_or_name/user/credentials', async (c) => {
    const caller = callerOf(c);
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    const n = await store.deleteCredentials(record.id, 'user', caller.userId);
    return c.json(message(`Deleted ${n} user credential${n === 1 ? '' : 's'} of connector '${record.name}'`), 200);
  });

  app.delete('/:connector_id_or_name/:consumer_scope/credentials/:credentials_name', async (c) => {
    const caller = callerOf(c);
    const scope = pathScope(c);
    const record = await visibleConnector(store, c.req.param('connector_id_or_name'), caller);
    await requireScopeRight(record, caller, scope, 'manage credentials');
    const name = c.req.param('credentials_name');
    if (!(await store.deleteCredential(record.id, scope, consumerId(caller, scope), name))) {
      throw notFound(`Credentials '${name}' not found for connector '${record.name}' at the ${scope} level`);
    }
    return c.json(message(`Credentials '${name}' deleted`), 200);
  });

  return app;
}
