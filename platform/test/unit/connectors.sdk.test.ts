/**
 * SDK conformance for connectors: the official `@mistralai/mistralai` client (`beta.connectors.*`,
 * unmodified) against the local platform, with the demo MCP server on a loopback port behind the
 * connector. The SDK checks status codes, content types and every answer's schema, so each call
 * resolving is itself an assertion. Also: a conversation whose connector tool the platform runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mistral } from '@mistralai/mistralai';
import * as errors from '@mistralai/mistralai/models/errors';
import type { Platform } from '../../src/app.js';
import { startDemoMcpServer, type DemoMcpServer } from '../../src/demo-mcp/server.js';
import { startPlatform } from './helpers.js';
import { drain, sdkFor } from './sdk.js';

let platform: Platform;
let mcp: DemoMcpServer;
let sdk: Mistral;
let connectorId: string;

beforeAll(async () => {
  [platform, mcp] = await Promise.all([startPlatform(), startDemoMcpServer()]);
  sdk = sdkFor(platform);
  const created = await sdk.beta.connectors.create({ name: 'shop_orders', description: 'Orders of the Lumen Lamps shop', server: mcp.url, protocol: 'mcp' });
  connectorId = created.id;
});
afterAll(async () => {
  await platform.close();
  await mcp.close();
});

describe('beta.connectors', () => {
  it('create (201), get by id and by name, list with a cursor', async () => {
    const c = await sdk.beta.connectors.create({ name: 'sdk_made', title: 'SDK', description: 'd', server: mcp.url, protocol: 'mcp', visibility: 'private' });
    expect(c.protocol).toBe('mcp');
    expect(c.createdAt).toBeInstanceOf(Date);
    expect(c.visibility).toBe('private');
    expect((await sdk.beta.connectors.get({ connectorIdOrName: c.id })).id).toBe(c.id);
    const byName = await sdk.beta.connectors.get({ connectorIdOrName: 'sdk_made', fetchUserData: true });
    expect(byName.id).toBe(c.id);
    expect(byName.protocol === 'mcp' && byName.connectionCredentials).toEqual([]);

    const first = await sdk.beta.connectors.list({ pageSize: 1 });
    expect(first.items).toHaveLength(1);
    expect(first.pagination.pageSize).toBe(1);
    expect(first.pagination.nextCursor).toBeTruthy();
    const second = await sdk.beta.connectors.list({ pageSize: 1, cursor: first.pagination.nextCursor });
    expect(second.items[0].id).not.toBe(first.items[0].id);
    const active = await sdk.beta.connectors.list({ queryFilters: { active: true } });
    expect(active.items.map((x) => x.id)).toEqual(expect.arrayContaining([c.id, connectorId]));
  });

  it('update and delete', async () => {
    const c = await sdk.beta.connectors.create({ name: 'to_update', description: 'd', server: mcp.url, protocol: 'mcp' });
    const updated = await sdk.beta.connectors.update({ connectorId: c.id, requestBody: { protocol: 'mcp', title: 'Updated', systemPrompt: 'Use for orders' } });
    expect(updated.title).toBe('Updated');
    expect(updated.systemPrompt).toBe('Use for orders');
    expect((await sdk.beta.connectors.delete({ connectorId: c.id })).message).toContain('deleted');
    await expect(sdk.beta.connectors.get({ connectorIdOrName: c.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('a 422 arrives as HTTPValidationError, a 404 as a MistralError', async () => {
    const bad = await sdk.beta.connectors.create({ name: 'bad server', description: 'd', server: 'ftp://x', protocol: 'mcp' }).catch((e) => e);
    expect(bad).toBeInstanceOf(errors.HTTPValidationError);
    const missing = await sdk.beta.connectors.delete({ connectorId: '00000000-0000-4000-8000-000000000000' }).catch((e) => e);
    expect(missing).toBeInstanceOf(errors.MistralError);
    expect(missing.statusCode).toBe(404);
  });

  it('share, unshare, activate, deactivate', async () => {
    const c = await sdk.beta.connectors.create({ name: 'to_share', description: 'd', server: mcp.url, protocol: 'mcp' });
    expect((await sdk.beta.connectors.share({ connectorId: c.id })).message).toBeTruthy();
    expect((await sdk.beta.connectors.get({ connectorIdOrName: c.id })).visibility).toBe('shared_workspace');
    expect((await sdk.beta.connectors.unshare({ connectorId: c.id })).message).toBeTruthy();
    expect((await sdk.beta.connectors.shareToOrganization({ connectorId: c.id })).message).toBeTruthy();
    expect((await sdk.beta.connectors.unshareFromOrganization({ connectorId: c.id })).message).toBeTruthy();
    await sdk.beta.connectors.deactivateForConsumer({ connectorId: c.id, consumerScope: 'organization' });
    const off = await sdk.beta.connectors.get({ connectorIdOrName: c.id });
    expect(off.active).toBe(false);
    expect(off.blockedBy).toEqual(['org']);
    await sdk.beta.connectors.activateForConsumer({ connectorId: c.id, consumerScope: 'organization' });
    expect((await sdk.beta.connectors.get({ connectorIdOrName: c.id })).active).toBe(true);
  });

  it('credentials at each level, authentication methods, auth URL', async () => {
    const c = await sdk.beta.connectors.create({
      name: 'with_oauth', description: 'd', server: mcp.url, protocol: 'mcp',
      authData: { clientId: 'cid' },
      oauth2ServerMetadata: { issuer: 'https://auth.example.com', authorizationEndpoint: 'https://auth.example.com/authorize', tokenEndpoint: 'https://auth.example.com/token' },
    });
    for (const consumerScope of ['user', 'workspace', 'organization'] as const) {
      await sdk.beta.connectors.createCredentials({ connectorIdOrName: c.id, consumerScope, credentialsCreateOrUpdate: { name: `${consumerScope}_key`, credentials: { bearerToken: 't' } } });
    }
    await sdk.beta.connectors.updateCredentials({ connectorIdOrName: c.id, consumerScope: 'user', credentialsCreateOrUpdate: { name: 'user_key', title: 'Mine' } });
    const user = await sdk.beta.connectors.listUserCredentials({ connectorIdOrName: c.id });
    expect(user.credentials).toEqual([expect.objectContaining({ name: 'user_key', title: 'Mine', scope: 'user', authenticationType: 'bearer', isDefault: true })]);
    expect((await sdk.beta.connectors.listWorkspaceCredentials({ connectorIdOrName: c.id })).credentials[0].name).toBe('workspace_key');
    const org = await sdk.beta.connectors.listOrganizationCredentials({ connectorIdOrName: c.id, fetchDefault: true });
    expect(org.credentials[0].scope).toBe('org');
    expect(org.connectorPresetCredentialsForAuth).toEqual(['bearer']);
    await sdk.beta.connectors.deleteWorkspaceCredentials({ connectorIdOrName: c.id, credentialsName: 'workspace_key' });
    await sdk.beta.connectors.deleteOrganizationCredentials({ connectorIdOrName: c.id, credentialsName: 'organization_key' });
    await sdk.beta.connectors.deleteUserCredentials({ connectorIdOrName: c.id, credentialsName: 'user_key' });
    await sdk.beta.connectors.createCredentials({ connectorIdOrName: c.id, consumerScope: 'user', credentialsCreateOrUpdate: { name: 'again', credentials: { bearerToken: 't' } } });
    await sdk.beta.connectors.deleteAllUserCredentials({ connectorIdOrName: c.id });
    expect((await sdk.beta.connectors.listUserCredentials({ connectorIdOrName: c.id })).credentials).toEqual([]);

    const methods = await sdk.beta.connectors.getAuthenticationMethods({ connectorIdOrName: c.id });
    expect(methods[0].methodType).toBe('oauth2');
    expect(methods[0].oauth2ServerMetadata?.tokenEndpoint).toBe('https://auth.example.com/token');
    const auth = await sdk.beta.connectors.getAuthUrl({ connectorIdOrName: 'with_oauth', appReturnUrl: 'http://localhost/back' });
    expect(auth.authUrl).toMatch(/^https:\/\/auth\.example\.com\/authorize\?/);
    expect(auth.ttl).toBe(600);
  });

  it('listTools and callTool reach the MCP server', async () => {
    const tools = await sdk.beta.connectors.listTools({ connectorIdOrName: 'shop_orders' });
    expect(tools.map((t: any) => t.name)).toEqual(['get_order_status', 'list_orders']);
    expect((tools[0] as any).inputSchema.properties.order_id.type).toBe('string');
    const result = await sdk.beta.connectors.callTool({ connectorIdOrName: connectorId, toolName: 'get_order_status', connectorCallToolRequest: { arguments: { order_id: '1043' } } });
    expect(result.content[0]).toMatchObject({ type: 'text' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ order_id: '1043', status: 'processing' });
  });
});

describe('conversations with a connector tool', () => {
  const question = 'What is the status of order 1042?';

  it('start: the platform runs the MCP tool (tool.execution entry) and answers in the same turn', async () => {
    const res = await sdk.beta.conversations.start({ model: 'parley-local', inputs: question, tools: [{ type: 'connector', connectorId }] });
    expect(res.outputs.map((o) => o.type)).toEqual(['tool.execution', 'message.output']);
    const exec = res.outputs[0];
    if (exec.type !== 'tool.execution') throw new Error('expected a tool execution');
    expect(exec.id).toMatch(/^tool_exec_[0-9a-f]{32}$/);
    expect(exec.name).toBe('get_order_status');
    expect(JSON.parse(exec.arguments)).toEqual({ order_id: '1042' });
    expect(exec.info).toMatchObject({ connector_id: connectorId, connector_name: 'shop_orders', is_error: false });
    const message = res.outputs[1];
    expect(message.type === 'message.output' && String(message.content)).toContain('ColisExpress');
    expect(res.usage.connectors).toEqual({ shop_orders: 1 });
    expect(res.usage.connectorTokens).toBeGreaterThan(0);

    const history = await sdk.beta.conversations.getHistory({ conversationId: res.conversationId });
    expect(history.entries.map((e) => e.type)).toEqual(['message.input', 'tool.execution', 'message.output']);
  });

  it('startStream: tool.execution.started / done events, then the message and usage', async () => {
    const events = await drain(await sdk.beta.conversations.startStream({ model: 'parley-local', inputs: question, tools: [{ type: 'connector', connectorId }] }));
    const types = events.map((e) => e.data.type);
    expect(types[0]).toBe('conversation.response.started');
    expect(types.slice(1, 3)).toEqual(['tool.execution.started', 'tool.execution.done']);
    expect(types.at(-1)).toBe('conversation.response.done');
    const started = events[1].data;
    const done = events[2].data;
    expect(started).toMatchObject({ name: 'get_order_status', outputIndex: 0 });
    expect(JSON.parse(started.arguments)).toEqual({ order_id: '1042' });
    expect(done).toMatchObject({ id: started.id, name: 'get_order_status', outputIndex: 0 });
    expect(done.info.content[0].text).toContain('"status":"shipped"');
    const deltas = events.filter((e) => e.data.type === 'message.output.delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((e) => e.data.outputIndex === 1)).toBe(true);
    expect(events.at(-1)!.data.usage).toMatchObject({ connectors: { shop_orders: 1 } });
    expect(events.at(-1)!.data.usage.connectorTokens).toBeGreaterThan(0);
  });

  it('an agent with a connector tool runs it; include/exclude filter the MCP tools', async () => {
    const agent = await sdk.beta.agents.create({ model: 'parley-local', name: 'Orders', tools: [{ type: 'connector', connectorId }] });
    const res = await sdk.beta.conversations.start({ agentId: agent.id, inputs: 'list orders please' });
    expect(res.outputs[0]).toMatchObject({ type: 'tool.execution', name: 'list_orders', agentId: agent.id });
    const excluded = await sdk.beta.conversations.start({
      model: 'parley-local', inputs: question,
      tools: [{ type: 'connector', connectorId, toolConfiguration: { exclude: ['get_order_status', 'list_orders'] } }],
    });
    expect(excluded.outputs.map((o) => o.type)).toEqual(['message.output']);
    expect(excluded.usage.connectors ?? null).toBeNull();
  });

  it('a deactivated connector offers no tools; an unknown one is a 404', async () => {
    await sdk.beta.connectors.deactivateForConsumer({ connectorId, consumerScope: 'workspace' });
    try {
      const res = await sdk.beta.conversations.start({ model: 'parley-local', inputs: question, tools: [{ type: 'connector', connectorId }] });
      expect(res.outputs.map((o) => o.type)).toEqual(['message.output']);
    } finally {
      await sdk.beta.connectors.activateForConsumer({ connectorId, consumerScope: 'workspace' });
    }
    const missing = await sdk.beta.conversations.start({
      model: 'parley-local', inputs: question, tools: [{ type: 'connector', connectorId: '00000000-0000-4000-8000-000000000000' }],
    }).catch((e) => e);
    expect(missing).toBeInstanceOf(errors.MistralError);
    expect(missing.statusCode).toBe(404);
  });

  it('an unreachable MCP server fails the request with a 502, not a 500', async () => {
    const down = await sdk.beta.connectors.create({ name: 'down', description: 'd', server: 'http://127.0.0.1:1/mcp', protocol: 'mcp' });
    const err = await sdk.beta.conversations.start({ model: 'parley-local', inputs: question, tools: [{ type: 'connector', connectorId: down.id }] }).catch((e) => e);
    expect(err).toBeInstanceOf(errors.MistralError);
    expect(err.statusCode).toBe(502);
  });
});
