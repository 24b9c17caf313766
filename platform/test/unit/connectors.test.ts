/**
 * Connectors API over plain HTTP: CRUD, cursor pages, visibility, sharing, activation, credentials,
 * and the MCP tools of a real MCP server (the demo order server on a loopback port).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { DEMO_MCP_PATH, demoMcpHandler, startDemoMcpServer, type DemoMcpServer } from '../../src/demo-mcp/server.js';
import { serveFetch } from 'parley-kit/server';
import { ISO_Z, call, startPlatform } from './helpers.js';

const MEMBER = 'member-key';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let platform: Platform;
let mcp: DemoMcpServer;
let lockedMcp: DemoMcpServer;
let counter = 0;

beforeAll(async () => {
  [platform, mcp, lockedMcp] = await Promise.all([
    startPlatform({ members: [{ apiKey: MEMBER, email: 'member@example.com' }] }),
    startDemoMcpServer(),
    startDemoMcpServer({ bearerToken: 'orders-secret' }),
  ]);
});
afterAll(async () => {
  await platform.close();
  await mcp.close();
  await lockedMcp.close();
});

const uniqueName = (base: string) => `${base}_${++counter}`;

async function create(body: Record<string, unknown> = {}, key?: string) {
  const res = await call(platform, '/v1/connectors', { body: { name: uniqueName('orders'), description: 'Order lookups', server: mcp.url, ...body }, key });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json;
}

describe('create, get, update, delete', () => {
  it('creates a private MCP connector (201) in the platform shape', async () => {
    const res = await call(platform, '/v1/connectors', { body: { name: uniqueName('shop'), title: 'Shop', description: 'Orders', server: mcp.url, protocol: 'mcp' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const c = res.json;
    expect(c.id).toMatch(UUID);
    expect(c.created_at).toMatch(ISO_Z);
    expect(c).toMatchObject({ title: 'Shop', description: 'Orders', server: mcp.url, protocol: 'mcp', visibility: 'private', owner_type: 'user', active: true, blocked_by: [], private_tool_execution: false, mistral: false });
    expect(c.owner_id).toBe(c.creator_id);
    expect(c.supported_auth_methods).toEqual([{ method_type: 'none', headers: null, global_headers: {}, has_default_credentials: true }]);
  });

  it('answers 422 for bad bodies: missing fields, a bad name, a non-http server, protocol http', async () => {
    const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
      [{ name: 'x', server: mcp.url }, ['body', 'description']],
      [{ name: 'has space', description: 'd', server: mcp.url }, ['body', 'name']],
      [{ name: 'a'.repeat(65), description: 'd', server: mcp.url }, ['body', 'name']],
      [{ name: 'ftp', description: 'd', server: 'ftp://example.com/mcp' }, ['body', 'server']],
      [{ name: 'rel', description: 'd', server: '/mcp' }, ['body', 'server']],
      [{ name: 'http', description: 'd', server: mcp.url, protocol: 'http' }, ['body', 'protocol']],
      [{ name: 'vis', description: 'd', server: mcp.url, visibility: 'public' }, ['body', 'visibility']],
    ];
    for (const [body, loc] of cases) {
      const res = await call(platform, '/v1/connectors', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    const bad = await call(platform, '/v1/connectors', { rawBody: '{', headers: { 'content-type': 'application/json' }, method: 'POST' });
    expect(bad.status).toBe(422);
  });

  it('refuses a second connector with the same name in the workspace (409)', async () => {
    const c = await create();
    const res = await call(platform, '/v1/connectors', { body: { name: c.name, description: 'again', server: mcp.url } });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ object: 'error', code: 'conflict', param: 'name' });
  });

  it('gets by id or by name; unknown → 404 in the generic shape', async () => {
    const c = await create();
    expect((await call(platform, `/v1/connectors/${c.id}`)).json.id).toBe(c.id);
    expect((await call(platform, `/v1/connectors/${c.name}`)).json.id).toBe(c.id);
    const missing = await call(platform, '/v1/connectors/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'not_found' });
    expect((await call(platform, '/v1/connectors/no_such_name')).status).toBe(404);
  });

  it('updates fields, keeps required ones on null, and validates the server URL', async () => {
    const c = await create();
    const renamed = uniqueName('renamed');
    const res = await call(platform, `/v1/connectors/${c.id}`, { method: 'PATCH', body: { name: renamed, title: 'T', description: null, system_prompt: 'Be brief' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: c.id, name: renamed, title: 'T', description: c.description, system_prompt: 'Be brief' });
    expect(res.json.modified_at > c.modified_at).toBe(true);
    expect((await call(platform, `/v1/connectors/${renamed}`)).json.id).toBe(c.id);
    const bad = await call(platform, `/v1/connectors/${c.id}`, { method: 'PATCH', body: { server: 'javascript:alert(1)' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['body', 'server']);
  });

  it('PATCH and DELETE take a UUID (422 otherwise) and answer 404 for unknown ones', async () => {
    expect((await call(platform, '/v1/connectors/not-a-uuid', { method: 'PATCH', body: {} })).status).toBe(422);
    const r = await call(platform, '/v1/connectors/not-a-uuid', { method: 'DELETE' });
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['path', 'connector_id'], type: 'uuid_parsing' });
    expect((await call(platform, '/v1/connectors/00000000-0000-4000-8000-000000000000', { method: 'PATCH', body: {} })).status).toBe(404);
    expect((await call(platform, '/v1/connectors/00000000-0000-4000-8000-000000000000', { method: 'DELETE' })).status).toBe(404);
  });

  it('deletes (200 {message}); afterwards the connector is gone', async () => {
    const c = await create();
    const res = await call(platform, `/v1/connectors/${c.id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(typeof res.json.message).toBe('string');
    expect((await call(platform, `/v1/connectors/${c.id}`)).status).toBe(404);
  });
});

describe('list', () => {
  it('pages newest first with an opaque cursor', async () => {
    const p = await startPlatform();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await call(p, '/v1/connectors', { body: { name: `c${i}`, description: 'd', server: mcp.url } })).json.id);
      }
      const first = await call(p, '/v1/connectors?page_size=2');
      expect(first.status).toBe(200);
      expect(first.json.pagination.page_size).toBe(2);
      expect(first.json.items.map((c: any) => c.id)).toEqual([ids[4], ids[3]]);
      const seen = [...first.json.items.map((c: any) => c.id)];
      let cursor = first.json.pagination.next_cursor;
      while (cursor) {
        const next = await call(p, `/v1/connectors?page_size=2&cursor=${encodeURIComponent(cursor)}`);
        seen.push(...next.json.items.map((c: any) => c.id));
        cursor = next.json.pagination.next_cursor;
      }
      expect(seen).toEqual([...ids].reverse());
    } finally {
      await p.close();
    }
  });

  it('answers 422 for a bad cursor, page size or filter', async () => {
    expect((await call(platform, '/v1/connectors?cursor=nonsense')).status).toBe(422);
    expect((await call(platform, '/v1/connectors?page_size=0')).status).toBe(422);
    expect((await call(platform, '/v1/connectors?page_size=1001')).status).toBe(422);
    expect((await call(platform, '/v1/connectors?active=maybe')).status).toBe(422);
    expect((await call(platform, '/v1/connectors?query_filters=%7Bnope')).status).toBe(422);
  });

  it('filters on activation (active=… as the SDK sends it, or query_filters JSON)', async () => {
    const on = await create();
    const off = await create();
    expect((await call(platform, `/v1/connectors/${off.id}/user/deactivate`, { method: 'POST' })).status).toBe(200);
    const active = (await call(platform, '/v1/connectors?active=true')).json.items.map((c: any) => c.id);
    expect(active).toContain(on.id);
    expect(active).not.toContain(off.id);
    const inactive = (await call(platform, `/v1/connectors?query_filters=${encodeURIComponent('{"active":false}')}`)).json.items.map((c: any) => c.id);
    expect(inactive).toContain(off.id);
    expect(inactive).not.toContain(on.id);
  });

  it('shows private connectors to their creator only', async () => {
    const mine = await create();
    const theirs = (await call(platform, '/v1/connectors?page_size=1000', { key: MEMBER })).json.items.map((c: any) => c.id);
    expect(theirs).not.toContain(mine.id);
    expect((await call(platform, `/v1/connectors/${mine.id}`, { key: MEMBER })).status).toBe(404);
  });
});

describe('sharing', () => {
  it('shares to the workspace: members see and use it; unsharing removes their connections', async () => {
    const c = await create();
    const share = await call(platform, `/v1/connectors/${c.id}/share`, { method: 'PUT' });
    expect(share.status).toBe(200);
    const seen = await call(platform, `/v1/connectors/${c.id}`, { key: MEMBER });
    expect(seen.status).toBe(200);
    expect(seen.json).toMatchObject({ visibility: 'shared_workspace', owner_type: 'workspace' });
    expect((await call(platform, `/v1/connectors/${c.id}/tools`, { key: MEMBER })).status).toBe(200);

    // Connections made while shared: the member's own, a workspace one, and the creator's own.
    await call(platform, `/v1/connectors/${c.id}/user/credentials`, { key: MEMBER, body: { name: 'member', credentials: { bearer_token: 'm' } } });
    await call(platform, `/v1/connectors/${c.id}/workspace/credentials`, { body: { name: 'team', credentials: { bearer_token: 't' } } });
    await call(platform, `/v1/connectors/${c.id}/user/credentials`, { body: { name: 'owner', credentials: { bearer_token: 'o' } } });

    expect((await call(platform, `/v1/connectors/${c.id}/share`, { method: 'DELETE', key: MEMBER })).status).toBe(403);
    const unshare = await call(platform, `/v1/connectors/${c.id}/share`, { method: 'DELETE' });
    expect(unshare.status).toBe(200);
    expect((await call(platform, `/v1/connectors/${c.id}`, { key: MEMBER })).status).toBe(404);
    const after = await call(platform, `/v1/connectors/${c.id}`);
    expect(after.json).toMatchObject({ visibility: 'private', owner_type: 'user' });
    expect((await call(platform, `/v1/connectors/${c.id}/workspace/credentials`)).json.credentials).toEqual([]);
    expect((await call(platform, `/v1/connectors/${c.id}/user/credentials`)).json.credentials.map((x: any) => x.name)).toEqual(['owner']);
  });

  it('only the creator holding ShareConnectorToWorkspace may share (403 otherwise)', async () => {
    const own = await create({}, MEMBER);
    const res = await call(platform, `/v1/connectors/${own.id}/share`, { method: 'PUT', key: MEMBER });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ object: 'error', code: 'forbidden' });
    expect(res.json.message).toContain('ShareConnectorToWorkspace');
    // Creating a shared connector directly needs the permission too.
    const direct = await call(platform, '/v1/connectors', { key: MEMBER, body: { name: uniqueName('team'), description: 'd', server: mcp.url, visibility: 'shared_workspace' } });
    expect(direct.status).toBe(403);
  });

  it('a member cannot update, delete or unshare a shared connector they did not create', async () => {
    const c = await create({ visibility: 'shared_workspace' });
    expect((await call(platform, `/v1/connectors/${c.id}`, { method: 'PATCH', key: MEMBER, body: { title: 'mine' } })).status).toBe(403);
    expect((await call(platform, `/v1/connectors/${c.id}`, { method: 'DELETE', key: MEMBER })).status).toBe(403);
    expect((await call(platform, `/v1/connectors/${c.id}/share`, { method: 'DELETE', key: MEMBER })).status).toBe(403);
  });

  it('shares with the organization and back; sharing an already shared connector elsewhere is a 400', async () => {
    const c = await create();
    expect((await call(platform, `/v1/connectors/${c.id}/organization/share`, { method: 'PUT' })).status).toBe(200);
    expect((await call(platform, `/v1/connectors/${c.id}`, { key: MEMBER })).json.owner_type).toBe('org');
    expect((await call(platform, `/v1/connectors/${c.id}/share`, { method: 'PUT' })).status).toBe(400);
    expect((await call(platform, `/v1/connectors/${c.id}/share`, { method: 'DELETE' })).status).toBe(400);
    expect((await call(platform, `/v1/connectors/${c.id}/organization/share`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(platform, `/v1/connectors/${c.id}`, { key: MEMBER })).status).toBe(404);
  });
});

describe('activation', () => {
  it('deactivates and activates per consumer scope', async () => {
    const c = await create({ visibility: 'shared_workspace' });
    expect((await call(platform, `/v1/connectors/${c.id}/workspace/deactivate`, { method: 'POST' })).status).toBe(200);
    expect((await call(platform, `/v1/connectors/${c.id}/user/deactivate`, { method: 'POST' })).status).toBe(200);
    const seen = (await call(platform, `/v1/connectors/${c.id}`, { key: MEMBER })).json;
    expect(seen).toMatchObject({ active: false, blocked_by: ['workspace'] });
    expect((await call(platform, `/v1/connectors/${c.id}`)).json.blocked_by).toEqual(['workspace', 'user']);
    await call(platform, `/v1/connectors/${c.id}/workspace/activate`, { method: 'POST' });
    expect((await call(platform, `/v1/connectors/${c.id}`, { key: MEMBER })).json).toMatchObject({ active: true, blocked_by: [] });
    expect((await call(platform, `/v1/connectors/${c.id}`)).json.blocked_by).toEqual(['user']);
  });

  it('validates the scope (422) and needs a manager above the user level (403)', async () => {
    const c = await create({ visibility: 'shared_workspace' });
    const bad = await call(platform, `/v1/connectors/${c.id}/team/activate`, { method: 'POST' });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['path', 'consumer_scope']);
    expect((await call(platform, `/v1/connectors/${c.id}/organization/deactivate`, { method: 'POST', key: MEMBER })).status).toBe(403);
    expect((await call(platform, `/v1/connectors/${c.id}/user/deactivate`, { method: 'POST', key: MEMBER })).status).toBe(200);
    expect((await call(platform, '/v1/connectors/00000000-0000-4000-8000-000000000000/user/activate', { method: 'POST' })).status).toBe(404);
  });
});

describe('credentials and authentication', () => {
  it('creates, lists, promotes and deletes credentials at a level', async () => {
    const c = await create();
    const base = `/v1/connectors/${c.id}/user/credentials`;
    const first = await call(platform, base, { body: { name: 'main', title: 'Main', credentials: { bearer_token: 'a' } } });
    expect(first.status).toBe(200);
    expect(typeof first.json.message).toBe('string');
    await call(platform, base, { body: { name: 'spare', credentials: { bearer_token: 'b' } } });
    let list = (await call(platform, base)).json.credentials;
    expect(list).toEqual([
      expect.objectContaining({ name: 'main', title: 'Main', authentication_type: 'bearer', scope: 'user', is_default: true }),
      expect.objectContaining({ name: 'spare', is_default: false }),
    ]);
    expect(JSON.stringify(list)).not.toContain('"a"');
    await call(platform, base, { body: { name: 'spare', is_default: true } });
    list = (await call(platform, `${base}?fetch_default=true`)).json.credentials;
    expect(list.map((x: any) => x.name)).toEqual(['spare']);
    expect((await call(platform, `${base}?auth_type=oauth2`)).json.credentials).toEqual([]);
    expect((await call(platform, `${base}/main`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(platform, `${base}/main`, { method: 'DELETE' })).status).toBe(404);
    expect((await call(platform, base, { method: 'DELETE' })).json.message).toContain('1');
    expect((await call(platform, base)).json.credentials).toEqual([]);
  });

  it('validates credential bodies and default rules (422), updates only existing ones with PATCH (404)', async () => {
    const c = await create();
    const base = `/v1/connectors/${c.id}/workspace/credentials`;
    expect((await call(platform, base, { body: { credentials: { bearer_token: 'x' } } })).status).toBe(422);
    const notDefault = await call(platform, base, { body: { name: 'first', is_default: false, credentials: { bearer_token: 'x' } } });
    expect(notDefault.status).toBe(422);
    expect(notDefault.json.detail[0].loc).toEqual(['body', 'is_default']);
    expect((await call(platform, base, { method: 'PATCH', body: { name: 'ghost', title: 't' } })).status).toBe(404);
    await call(platform, base, { body: { name: 'first', credentials: { bearer_token: 'x' } } });
    expect((await call(platform, base, { method: 'PATCH', body: { name: 'first', title: 'Renamed' } })).status).toBe(200);
    expect((await call(platform, base)).json.credentials[0]).toMatchObject({ name: 'first', title: 'Renamed', scope: 'workspace', is_default: true });
    expect((await call(platform, `/v1/connectors/${c.id}/team/credentials`)).status).toBe(422);
  });

  it('organization/workspace credentials of a shared connector need a manager (403); user ones do not', async () => {
    const c = await create({ visibility: 'shared_workspace' });
    expect((await call(platform, `/v1/connectors/${c.id}/workspace/credentials`, { key: MEMBER, body: { name: 'x', credentials: { bearer_token: 'x' } } })).status).toBe(403);
    expect((await call(platform, `/v1/connectors/${c.id}/user/credentials`, { key: MEMBER, body: { name: 'x', credentials: { bearer_token: 'x' } } })).status).toBe(200);
    // Each user sees only their own user-level credentials.
    expect((await call(platform, `/v1/connectors/${c.id}/user/credentials`)).json.credentials).toEqual([]);
  });

  it('lists authentication methods and builds an OAuth2 authorization URL', async () => {
    const plain = await create();
    expect((await call(platform, `/v1/connectors/${plain.id}/authentication_methods`)).json).toEqual([{ method_type: 'none', headers: null, global_headers: {}, has_default_credentials: true }]);
    expect((await call(platform, `/v1/connectors/${plain.id}/auth_url`)).status).toBe(400);
    const oauth = await create({
      auth_data: { client_id: 'parley-client', client_secret: 's3cret' },
      oauth2_server_metadata: { issuer: 'https://auth.example.com', authorization_endpoint: 'https://auth.example.com/authorize', token_endpoint: 'https://auth.example.com/token' },
    });
    expect(JSON.stringify(oauth)).not.toContain('s3cret');
    const methods = (await call(platform, `/v1/connectors/${oauth.name}/authentication_methods`)).json;
    expect(methods[0]).toMatchObject({ method_type: 'oauth2', has_default_credentials: false, grant_type: 'authorization_code' });
    const res = await call(platform, `/v1/connectors/${oauth.name}/auth_url?app_return_url=${encodeURIComponent('http://localhost:3000/back')}`);
    expect(res.status).toBe(200);
    expect(res.json.ttl).toBe(600);
    const url = new URL(res.json.auth_url);
    expect(url.origin + url.pathname).toBe('https://auth.example.com/authorize');
    expect(url.searchParams.get('client_id')).toBe('parley-client');
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:3000/back');
    expect((await call(platform, `/v1/connectors/${oauth.name}/auth_url?method_type=bearer`)).status).toBe(400);
    expect((await call(platform, `/v1/connectors/${oauth.name}/auth_url?method_type=magic`)).status).toBe(422);
  });

  it('masks secret global headers in answers', async () => {
    const c = await create({ global_headers: { 'x-shop': { is_secret: true, value: 'hidden-value' }, 'x-region': { is_secret: false, value: 'eu' } } });
    expect(JSON.stringify(c)).not.toContain('hidden-value');
    expect(c.supported_auth_methods[0].global_headers).toEqual({ 'x-shop': { is_secret: true, value: '********' }, 'x-region': { is_secret: false, value: 'eu' } });
  });
});

describe('MCP tools', () => {
  it('lists the MCP server’s tools (paged, pretty) and calls one', async () => {
    const c = await create();
    const tools = await call(platform, `/v1/connectors/${c.id}/tools`);
    expect(tools.status).toBe(200);
    expect(tools.json.map((t: any) => t.name)).toEqual(['get_order_status', 'list_orders']);
    expect(tools.json[0].inputSchema.required).toEqual(['order_id']);
    expect((await call(platform, `/v1/connectors/${c.name}/tools?page=2&page_size=1`)).json.map((t: any) => t.name)).toEqual(['list_orders']);
    const pretty = (await call(platform, `/v1/connectors/${c.name}/tools?pretty=true`)).json[0];
    expect(Object.keys(pretty).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name']);
    expect((await call(platform, `/v1/connectors/${c.name}/tools?page=0`)).status).toBe(422);

    const res = await call(platform, `/v1/connectors/${c.name}/tools/get_order_status/call`, { body: { arguments: { order_id: '1042' } } });
    expect(res.status).toBe(200);
    expect(res.json.is_error).toBe(false);
    expect(JSON.parse(res.json.content[0].text)).toMatchObject({ order_id: '1042', status: 'shipped', carrier: 'ColisExpress' });
    const unknownOrder = await call(platform, `/v1/connectors/${c.name}/tools/get_order_status/call`, { body: { arguments: { order_id: '9999' } } });
    expect(unknownOrder.json).toMatchObject({ is_error: true, content: [{ type: 'text', text: 'No order with number 9999' }] });
  });

  it('answers 404 for an unknown tool, 422 for a bad body', async () => {
    const c = await create();
    const res = await call(platform, `/v1/connectors/${c.id}/tools/cancel_order/call`, { body: { arguments: {} } });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ object: 'error', code: 'not_found' });
    expect((await call(platform, `/v1/connectors/${c.id}/tools/get_order_status/call`, { body: { arguments: 'order 1042' } })).status).toBe(422);
  });

  it('answers 502 in the generic shape when the MCP server cannot be reached', async () => {
    const c = await create({ server: 'http://127.0.0.1:1/mcp' });
    for (const path of [`/v1/connectors/${c.id}/tools`, `/v1/connectors/${c.id}/tools/x/call`]) {
      const res = await call(platform, path, path.endsWith('call') ? { body: {} } : {});
      expect(res.status).toBe(502);
      expect(res.json).toMatchObject({ object: 'error', type: 'server_error', code: 'connector_unreachable' });
    }
  });

  it('sends the caller’s credentials to the MCP server (by default or by name)', async () => {
    const c = await create({ server: lockedMcp.url });
    expect((await call(platform, `/v1/connectors/${c.id}/tools`)).status).toBe(502);
    await call(platform, `/v1/connectors/${c.id}/user/credentials`, { body: { name: 'wrong', credentials: { bearer_token: 'nope' } } });
    await call(platform, `/v1/connectors/${c.id}/user/credentials`, { body: { name: 'right', credentials: { bearer_token: 'orders-secret' } } });
    expect((await call(platform, `/v1/connectors/${c.id}/tools`)).status).toBe(502);
    expect((await call(platform, `/v1/connectors/${c.id}/tools?credentials_name=right`)).status).toBe(200);
    expect((await call(platform, `/v1/connectors/${c.id}/tools?credentials_name=ghost`)).status).toBe(404);
    await call(platform, `/v1/connectors/${c.id}/user/credentials`, { body: { name: 'right', is_default: true } });
    const called = await call(platform, `/v1/connectors/${c.id}/tools/list_orders/call`, { body: {} });
    expect(called.status).toBe(200);
    expect(JSON.parse(called.json.content[0].text)).toHaveLength(4);
  });

  it('uses connector-level headers for every caller', async () => {
    const c = await create({ server: lockedMcp.url, headers: { Authorization: 'Bearer orders-secret' } });
    expect((await call(platform, `/v1/connectors/${c.id}/tools`)).status).toBe(200);
  });
});

describe('durability', () => {
  it('keeps connectors, credentials and switches across a reopen of the data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-connectors-'));
    try {
      let p = await startPlatform({ dataDir });
      const c = (await call(p, '/v1/connectors', { body: { name: 'durable', description: 'd', server: mcp.url } })).json;
      await call(p, `/v1/connectors/${c.id}/user/credentials`, { body: { name: 'k', credentials: { bearer_token: 'x' } } });
      await call(p, `/v1/connectors/${c.id}/user/deactivate`, { method: 'POST' });
      await p.close();
      p = await startPlatform({ dataDir });
      try {
        const again = await call(p, '/v1/connectors/durable');
        expect(again.status).toBe(200);
        expect(again.json).toMatchObject({ id: c.id, active: false, blocked_by: ['user'] });
        expect((await call(p, `/v1/connectors/${c.id}/user/credentials`)).json.credentials[0].name).toBe('k');
      } finally {
        await p.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('MCP sessions in a conversation turn', () => {
  it('one session per connector serves the whole turn: initialize, list, call, and nothing after the turn', async () => {
    const methods: string[] = [];
    const handler = demoMcpHandler();
    const server = await serveFetch(async (request) => {
      if (request.method === 'POST') methods.push(((await request.clone().json()) as { method?: string }).method ?? '?');
      else methods.push(request.method);
      return handler(request);
    }, { port: 0, hostname: '127.0.0.1' });
    try {
      const created = await call(platform, '/v1/connectors', { body: { name: 'counted_orders', description: 'Orders, counted', server: `${server.url}${DEMO_MCP_PATH}`, protocol: 'mcp' } });
      expect(created.status).toBe(201);
      const res = await call(platform, '/v1/conversations', {
        body: { model: 'parley-local', inputs: 'What is the status of order 1042?', tools: [{ type: 'connector', connector_id: created.json.id }], store: false },
      });
      expect(res.status).toBe(200);
      expect(res.json.outputs.map((o: { type: string }) => o.type)).toEqual(['tool.execution', 'message.output']);
      // The GET is the client asking for the server's own event stream (this stateless server has none).
      expect(methods).toEqual(['initialize', 'notifications/initialized', 'GET', 'tools/list', 'tools/call']);
    } finally {
      await server.close();
    }
  });
});
