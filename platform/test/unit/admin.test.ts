// The admin API (/v1/admin/*) over plain HTTP: admin key only, users and invitations, roles, groups
// (nesting, members, workspace assignments), rate limit enforcement, spend limit, usage report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { ADMIN_KEY, ISO_Z, call, startPlatform } from './helpers.js';

const MEMBER_KEY = 'member-key';
let platform: Platform;
const admin = (path: string, options: { method?: string; body?: unknown } = {}) => call(platform, path, { ...options, key: ADMIN_KEY });

beforeAll(async () => {
  platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'Mia@Example.com', firstName: 'Mia', lastName: 'Member' }] });
});
afterAll(async () => {
  await platform.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('admin access', () => {
  it('refuses a normal key with 403 in the generic shape, and no key with 401', async () => {
    for (const [method, path] of [['GET', '/v1/admin/users'], ['POST', '/v1/admin/user-groups'], ['GET', '/v1/admin/usage'], ['GET', '/v1/admin/rate-limit']]) {
      const res = await call(platform, path, { method, body: method === 'POST' ? { name: 'x' } : undefined });
      expect(res.status, path).toBe(403);
      expect(res.json).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'forbidden', param: null });
      expect(typeof res.json.message).toBe('string');
      expect((await call(platform, path, { method, key: MEMBER_KEY })).status).toBe(403);
    }
    expect((await call(platform, '/v1/admin/users', { key: null })).status).toBe(401);
  });
});

describe('the documented /api/admin prefix', () => {
  it('serves the same API with the key in x-api-key, refusing normal and missing keys alike', async () => {
    const viaApi = await call(platform, '/api/admin/users?email=mia@example.com', { key: null, headers: { 'x-api-key': ADMIN_KEY } });
    expect(viaApi.status).toBe(200);
    expect(viaApi.json).toEqual((await admin('/v1/admin/users?email=mia@example.com')).json);
    const created = await call(platform, '/api/admin/user-groups', { key: null, headers: { 'x-api-key': ADMIN_KEY }, body: { name: 'Via api prefix' } });
    expect(created.status).toBe(200);
    expect((await admin(`/v1/admin/user-groups/${created.json.id ?? created.json.uuid}`)).status).toBe(200);
    expect((await call(platform, '/api/admin/users', { key: null, headers: { 'x-api-key': MEMBER_KEY } })).status).toBe(403);
    expect((await call(platform, '/api/admin/users', { key: null })).status).toBe(401);
  });
});

describe('users', () => {
  it('lists the seeded owner and members', async () => {
    const res = await admin('/v1/admin/users');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ page: 1, page_size: 100 });
    const owner = res.json.members.find((m: any) => m.email === 'owner@parley.local');
    expect(owner).toMatchObject({ raw_role: 'A', raw_roles: ['A'], roles: [{ name: 'organization_admin' }] });
    expect(owner.uuid).toMatch(UUID);
    expect(owner.created_at).toMatch(ISO_Z);
    const mia = res.json.members.find((m: any) => m.email === 'mia@example.com');
    expect(mia).toMatchObject({ first_name: 'Mia', last_name: 'Member', name: 'Mia Member', raw_role: 'M' });
    const filtered = await admin('/v1/admin/users?email=MIA@example.com');
    expect(filtered.json.members.map((m: any) => m.email)).toEqual(['mia@example.com']);
    expect(filtered.json.total).toBe(1);
  });

  it('creates users, reports invalid and taken emails, reads, updates and deletes them', async () => {
    const res = await admin('/v1/admin/users', { body: [
      { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', role_names: ['organization_admin'] },
      { email: 'alan@example.com', first_name: 'Alan', last_name: 'Turing', role: 'M', subscription_types: ['CHAT'] },
      { email: 'not-an-email', first_name: 'No', last_name: 'Body' },
      { email: 'mia@example.com', first_name: 'Mia', last_name: 'Again' },
    ] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.email_to_user_id)).toEqual(['ada@example.com', 'alan@example.com']);
    expect(res.json.invalid_emails).toEqual(['not-an-email', 'mia@example.com']);
    const alanId = res.json.email_to_user_id['alan@example.com'];

    const alan = await admin(`/v1/admin/users/${alanId}`);
    expect(alan.json).toMatchObject({ uuid: alanId, email: 'alan@example.com', raw_role: 'M', subscription_types: ['CHAT'] });

    const patched = await admin(`/v1/admin/users/${alanId}`, { method: 'PATCH', body: { role_names: ['billing_manager', 'member'] } });
    expect(patched.status).toBe(200);
    expect(patched.json.roles.map((r: any) => r.name)).toEqual(['billing_manager', 'member']);

    expect((await admin(`/v1/admin/users/${alanId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/v1/admin/users/${alanId}`)).json).toMatchObject({ object: 'error', code: 'not_found' });
    expect((await admin(`/v1/admin/users/${alanId}`)).status).toBe(404);
  });

  it('answers 422 for exclusive role fields, unknown roles and malformed bodies', async () => {
    const both = await admin('/v1/admin/users', { body: [{ email: 'x@example.com', first_name: 'X', last_name: 'Y', role: 'A', role_names: ['member'] }] });
    expect(both.status).toBe(422);
    expect(both.json.detail[0]).toMatchObject({ loc: ['body', 0], type: 'value_error' });
    const unknown = await admin('/v1/admin/users', { body: [{ email: 'x@example.com', first_name: 'X', last_name: 'Y', role_names: ['emperor'] }] });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['body', 0, 'role_names', 0]);
    const wrongScope = await admin('/v1/admin/users', { body: [{ email: 'x@example.com', first_name: 'X', last_name: 'Y', role_names: ['workspace_admin'] }] });
    expect(wrongScope.status).toBe(422);
    const missing = await admin('/v1/admin/users', { body: [{ email: 'x@example.com' }] });
    expect(missing.status).toBe(422);
    expect(missing.json.detail.map((d: any) => d.loc)).toEqual([['body', 0, 'first_name'], ['body', 0, 'last_name']]);
    expect((await admin('/v1/admin/users', { body: { email: 'x@example.com' } })).status).toBe(422);
    const patch = await admin(`/v1/admin/users/${(await admin('/v1/admin/users?email=mia@example.com')).json.members[0].uuid}`, { method: 'PATCH', body: { roles: ['A'], role_name: 'member' } });
    expect(patch.status).toBe(422);
    expect((await admin('/v1/admin/users?page=0')).status).toBe(422);
  });

  it('refuses to delete the owner, and a deleted member key stops working', async () => {
    const owner = (await admin('/v1/admin/users?email=owner@parley.local')).json.members[0];
    const res = await admin(`/v1/admin/users/${owner.uuid}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ object: 'error', code: 'conflict' });

    const other = await startPlatform({ members: [{ apiKey: 'gone-key', email: 'gone@example.com' }] });
    try {
      expect((await call(other, '/v1/models', { key: 'gone-key' })).status).toBe(200);
      const gone = (await call(other, '/v1/admin/users?email=gone@example.com', { key: ADMIN_KEY })).json.members[0];
      expect((await call(other, `/v1/admin/users/${gone.uuid}`, { method: 'DELETE', key: ADMIN_KEY })).status).toBe(204);
      expect((await call(other, '/v1/models', { key: 'gone-key' })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('invitations', () => {
  it('invites several comma-separated emails, lists and deletes invitations', async () => {
    const res = await admin('/v1/admin/users-invite', { body: { email: 'grace@example.com, Katherine@example.com', role_names: ['member'] } });
    expect(res.status).toBe(200);
    expect(res.json.invites.map((i: any) => i.email)).toEqual(['grace@example.com', 'katherine@example.com']);
    expect(res.json.invites[0]).toMatchObject({ expired: false, raw_role: 'M', raw_roles: ['M'] });
    expect(res.json.invites[0].created_at).toMatch(ISO_Z);

    const list = await admin('/v1/admin/users-invite');
    expect(list.json.invites.map((i: any) => i.email)).toEqual(expect.arrayContaining(['grace@example.com', 'katherine@example.com']));
    const users = await admin('/v1/admin/users?email=grace@example.com');
    expect(users.json.invites).toHaveLength(1);
    expect(users.json.members).toHaveLength(0);

    const id = res.json.invites[0].uuid;
    expect((await admin(`/v1/admin/users-invite/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/v1/admin/users-invite/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses invalid emails, members and exclusive role fields with 422', async () => {
    const bad = await admin('/v1/admin/users-invite', { body: { email: 'ok@example.com,nope' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'value_error' });
    expect(bad.json.detail[0].msg).toContain('nope');
    expect((await admin('/v1/admin/users-invite?x=1')).status).toBe(200);
    expect((await admin('/v1/admin/users-invite', { body: { email: 'ok@example.com', role: 'M', roles: ['M'] } })).status).toBe(422);
    expect((await admin('/v1/admin/users-invite', { body: { email: 'mia@example.com' } })).status).toBe(422);
    expect((await admin('/v1/admin/users-invite', { body: { email: ' , ' } })).status).toBe(422);
    expect((await admin('/v1/admin/users-invite', { body: {} })).json.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'missing' });
    expect((await admin('/v1/admin/users-invite?email=ok@example.com')).json.invites.some((i: any) => i.email === 'ok@example.com')).toBe(false);
  });
});

describe('roles', () => {
  it('lists built-in roles, creates, reads and deletes a custom one', async () => {
    const list = await admin('/v1/admin/roles');
    expect(list.status).toBe(200);
    expect(list.json.items.map((r: any) => r.name)).toEqual(expect.arrayContaining(['member', 'billing_manager', 'organization_admin', 'workspace_admin', 'workspace_member']));
    const wsAdmin = list.json.items.find((r: any) => r.name === 'workspace_admin');
    expect(wsAdmin).toMatchObject({ scope: 'workspace', builtin: true, code: 'A' });
    expect(wsAdmin.permissions).toContain('ShareConnectorToWorkspace');

    const created = await admin('/v1/admin/roles', { body: { name: 'connector_sharer', scope: 'workspace', permissions: ['UseApi', 'ShareConnectorToWorkspace'] } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ name: 'connector_sharer', builtin: false, code: null, permissions: ['UseApi', 'ShareConnectorToWorkspace'] });
    expect((await admin(`/v1/admin/roles/${created.json.uuid}`)).json.name).toBe('connector_sharer');
    expect((await admin('/v1/admin/roles', { body: { name: 'connector_sharer', scope: 'workspace', permissions: ['UseApi'] } })).status).toBe(409);
    expect((await admin(`/v1/admin/roles/${wsAdmin.uuid}`, { method: 'DELETE' })).status).toBe(409);
    const group = (await admin('/v1/admin/user-groups', { body: { name: 'Sharers' } })).json.uuid;
    const workspace = (await call(platform, '/v1/users/me')).json.workspace.id;
    await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, roles: [created.json.uuid] } });
    const inUse = await admin(`/v1/admin/roles/${created.json.uuid}`, { method: 'DELETE' });
    expect(inUse.status).toBe(409);
    expect(inUse.json.message).toContain('still assigned');
    expect((await admin(`/v1/admin/user-groups/${group}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/v1/admin/roles/${created.json.uuid}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/v1/admin/roles/${created.json.uuid}`)).status).toBe(404);
  });

  it('answers 422 for unknown permissions or scope', async () => {
    const res = await admin('/v1/admin/roles', { body: { name: 'r', scope: 'workspace', permissions: ['FlyToTheMoon'] } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'permissions', 0]);
    expect((await admin('/v1/admin/roles', { body: { name: 'r', scope: 'galaxy', permissions: ['UseApi'] } })).status).toBe(422);
    expect((await admin('/v1/admin/roles', { body: { name: 'r', scope: 'organization', permissions: ['UseApi'] } })).status).toBe(422);
  });
});

describe('user groups', () => {
  it('creates, lists, reads, updates and deletes groups', async () => {
    const created = await admin('/v1/admin/user-groups', { body: { name: 'Interns', description: 'Summer interns' } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ name: 'Interns', description: 'Summer interns', target_type: 'W', organization_role: null, externally_managed: false, parent_group_uuids: [], child_group_uuids: [] });
    const id = created.json.uuid;
    expect(id).toMatch(UUID);

    const list = await admin('/v1/admin/user-groups?search=intern');
    expect(list.json).toMatchObject({ page: 1, page_size: 100, total: 1 });
    expect(list.json.items[0].uuid).toBe(id);

    const patched = await admin(`/v1/admin/user-groups/${id}`, { method: 'PATCH', body: { description: 'Updated', organization_role: 'billing_manager' } });
    expect(patched.json).toMatchObject({ name: 'Interns', description: 'Updated', organization_role: 'billing_manager' });
    const cleared = await admin(`/v1/admin/user-groups/${id}`, { method: 'PATCH', body: { organization_role: null } });
    expect(cleared.json.organization_role).toBeNull();
    expect((await admin(`/v1/admin/user-groups/${id}`, { method: 'PATCH', body: { organization_role: 'workspace_admin' } })).status).toBe(422);

    expect((await admin(`/v1/admin/user-groups/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/v1/admin/user-groups/${id}`)).status).toBe(404);
    expect((await admin('/v1/admin/user-groups', { body: { description: 'no name' } })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups', { body: { name: 'x', target_type: 'Z' } })).status).toBe(422);
  });

  it('adds and removes members; unknown users are 422', async () => {
    const group = (await admin('/v1/admin/user-groups', { body: { name: 'Team' } })).json;
    const mia = (await admin('/v1/admin/users?email=mia@example.com')).json.members[0];
    const added = await admin(`/v1/admin/user-groups/${group.uuid}/members`, { body: { user_uuids: [mia.uuid] } });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ total: 1, items: [{ uuid: mia.uuid, email: 'mia@example.com' }] });
    expect((await admin(`/v1/admin/user-groups/${group.uuid}/members`)).json.total).toBe(1);
    const unknown = await admin(`/v1/admin/user-groups/${group.uuid}/members`, { body: { user_uuids: [mia.uuid, 'nobody'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['body', 'user_uuids', 1]);
    const removed = await admin(`/v1/admin/user-groups/${group.uuid}/members`, { method: 'DELETE', body: { user_uuids: [mia.uuid] } });
    expect(removed.json.total).toBe(0);
    expect((await admin('/v1/admin/user-groups/nope/members')).status).toBe(404);
    expect((await admin(`/v1/admin/user-groups/${group.uuid}/members`, { body: { user_uuids: [] } })).status).toBe(422);
  });

  it('nests groups and refuses a cycle', async () => {
    const a = (await admin('/v1/admin/user-groups', { body: { name: 'A' } })).json.uuid;
    const b = (await admin('/v1/admin/user-groups', { body: { name: 'B' } })).json.uuid;
    const c = (await admin('/v1/admin/user-groups', { body: { name: 'C' } })).json.uuid;
    expect((await admin(`/v1/admin/user-groups/${a}/child-groups`, { body: { group_uuids: [b] } })).json.items.map((g: any) => g.uuid)).toEqual([b]);
    expect((await admin(`/v1/admin/user-groups/${b}/child-groups`, { body: { group_uuids: [c] } })).status).toBe(200);
    expect((await admin(`/v1/admin/user-groups/${b}`)).json).toMatchObject({ parent_group_uuids: [a], child_group_uuids: [c] });

    const cycle = await admin(`/v1/admin/user-groups/${c}/child-groups`, { body: { group_uuids: [a] } });
    expect(cycle.status).toBe(422);
    expect(cycle.json.detail[0]).toMatchObject({ loc: ['body', 'group_uuids', 0], type: 'value_error' });
    expect(cycle.json.detail[0].msg).toContain('cycle');
    expect((await admin(`/v1/admin/user-groups/${a}/child-groups`, { body: { group_uuids: [a] } })).status).toBe(422);
    expect((await admin(`/v1/admin/user-groups/${a}/child-groups`, { body: { group_uuids: ['missing'] } })).status).toBe(422);

    const after = await admin(`/v1/admin/user-groups/${b}/child-groups`, { method: 'DELETE', body: { group_uuids: [c] } });
    expect(after.json.total).toBe(0);
    expect((await admin(`/v1/admin/user-groups/${c}/child-groups`, { body: { group_uuids: [a] } })).status).toBe(200);
  });

  it('provisions a group to a workspace with roles and removes the assignment', async () => {
    const group = (await admin('/v1/admin/user-groups', { body: { name: 'Ops' } })).json.uuid;
    const workspace = (await call(platform, '/v1/users/me/workspaces')).json.workspaces[0].id;
    const res = await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role_names: ['workspace_admin'] } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ user_group_uuid: group, workspace_uuid: workspace, workspace_name: 'Default workspace', raw_roles: ['A'], roles: [{ name: 'workspace_admin' }] });
    const again = await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role: 'M' } });
    expect(again.json.roles).toEqual([expect.objectContaining({ name: 'workspace_member' })]);
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces`)).json.total).toBe(1);

    expect((await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role_names: ['organization_admin'] } })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role: 'A', role_names: ['workspace_admin'] } })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: 'nope' } })).status).toBe(404);

    expect((await admin(`/v1/admin/user-groups/${group}/workspaces/${workspace}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces/${workspace}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('rate limit', () => {
  it('is enforced by the platform: 429 with Retry-After over requests_per_second, then recovers', async () => {
    expect((await admin('/v1/admin/rate-limit')).json).toEqual({ requests_per_second: 1000, tokens_limits_by_model: {} });
    const set = await admin('/v1/admin/rate-limit', { body: { requests_per_second: 2, tokens_limits_by_model: { 'parley-local': { tokens_per_minute: 1000, tokens_per_month: 100000 } } } });
    expect(set.json).toEqual({ requests_per_second: 2, tokens_limits_by_model: { 'parley-local': { tokens_per_minute: 1000, tokens_per_month: 100000 } } });
    try {
      const statuses: number[] = [];
      let limited: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 4; i++) {
        const res = await call(platform, '/v1/models');
        statuses.push(res.status);
        if (res.status === 429) limited ??= res;
      }
      expect(statuses.slice(0, 2)).toEqual([200, 200]);
      expect(statuses).toContain(429);
      expect(limited!.json).toEqual({ object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', param: null, code: '1300' });
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The admin API is not limited, so the limit can always be lifted.
      expect((await admin('/v1/admin/rate-limit')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await call(platform, '/v1/models')).status).toBe(200);
    } finally {
      await admin('/v1/admin/rate-limit', { body: { requests_per_second: 1000 } });
    }
  });

  it('answers 422 for a bad record', async () => {
    expect((await admin('/v1/admin/rate-limit', { body: { requests_per_second: 0 } })).status).toBe(422);
    expect((await admin('/v1/admin/rate-limit', { body: { requests_per_second: 1.5 } })).status).toBe(422);
    expect((await admin('/v1/admin/rate-limit', { body: { requests_per_second: 5, tokens_limits_by_model: { m: { tokens_per_minute: -1, tokens_per_month: 1 } } } })).status).toBe(422);
  });
});

describe('usage and spend limit', () => {
  it('reports the conversation turns really made, and enforces the spend limit from the same ledger', async () => {
    const month = new Date().getUTCMonth() + 1;
    const year = new Date().getUTCFullYear();
    const before = (await admin(`/v1/admin/usage?month=${month}&year=${year}`)).json;
    const beforeModel = before.completion.models['parley-local'] ?? { requests: 0, input_tokens: 0, output_tokens: 0 };

    const first = await call(platform, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Count the stars for me.' } });
    expect(first.status).toBe(200);
    const second = await call(platform, `/v1/conversations/${first.json.conversation_id}`, { body: { inputs: 'And the moons?' }, key: MEMBER_KEY });
    expect(second.status).toBe(200);

    const report = await admin(`/v1/admin/usage?month=${month}&year=${year}`);
    expect(report.status).toBe(200);
    expect(report.json).toMatchObject({ currency: 'EUR', currency_symbol: '€', workspace_id: null });
    expect(report.json.start_date).toMatch(ISO_Z);
    expect(report.json.start_date.slice(0, 10)).toBe(`${year}-${String(month).padStart(2, '0')}-01`);
    const model = report.json.completion.models['parley-local'];
    expect(model.requests - beforeModel.requests).toBe(2);
    expect(model.input_tokens - beforeModel.input_tokens).toBe(first.json.usage.prompt_tokens + second.json.usage.prompt_tokens);
    expect(model.output_tokens - beforeModel.output_tokens).toBe(first.json.usage.completion_tokens + second.json.usage.completion_tokens);
    expect(report.json.total_cost).toBeGreaterThan(before.total_cost);
    expect(report.json.total_cost).toBeCloseTo(report.json.completion.total_cost + report.json.audio.total_cost + report.json.ocr.total_cost, 12);

    const otherWorkspace = await admin(`/v1/admin/usage?workspace_id=elsewhere`);
    expect(otherWorkspace.json.total_cost).toBe(0);
    const lastYear = await admin(`/v1/admin/usage?month=${month}&year=${year - 1}`);
    expect(lastYear.json.completion.models).toEqual({});
    expect((await admin('/v1/admin/usage?month=13')).status).toBe(422);

    // Spend limit: a limit at or under the month's cost suspends the API until lifted.
    expect((await admin('/v1/admin/spend-limit')).json.limits).toMatchObject({ completion: { monthly_limit: null, monthly_limit_reached: false }, currency: 'EUR', last_payment_failure: false });
    const set = await admin('/v1/admin/spend-limit', { body: { amount: 0 } });
    expect(set.json.limits.completion).toMatchObject({ monthly_limit: 0, monthly_limit_reached: true });
    try {
      const refused = await call(platform, '/v1/models');
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ object: 'error', type: 'rate_limited', code: 'spend_limit_reached' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      await admin('/v1/admin/spend-limit', { body: { amount: 1000 } });
      expect((await call(platform, '/v1/models')).status).toBe(200);
    } finally {
      const lifted = await admin('/v1/admin/spend-limit', { body: { no_monthly_limit: true } });
      expect(lifted.json.limits.completion.monthly_limit).toBeNull();
    }
    expect((await call(platform, '/v1/models')).status).toBe(200);
    expect((await admin('/v1/admin/spend-limit', { body: {} })).json.detail[0]).toMatchObject({ loc: ['body', 'amount'], type: 'missing' });
    expect((await admin('/v1/admin/spend-limit', { body: { amount: -5 } })).status).toBe(422);
  });

  it('counts speech by characters in the audio category', async () => {
    const audioBefore = (await admin('/v1/admin/usage')).json.audio;
    const input = 'Bonjour à tous.';
    const res = await call(platform, '/v1/audio/speech', { body: { input, response_format: 'pcm' } });
    expect(res.status).toBe(200);
    const audio = (await admin('/v1/admin/usage')).json.audio;
    const [model] = Object.keys(audio.models);
    const before = audioBefore.models[model] ?? { requests: 0, quantity: 0 };
    expect(audio.models[model]).toMatchObject({ unit: 'characters', input_tokens: 0, output_tokens: 0 });
    expect(audio.models[model].requests - before.requests).toBe(1);
    expect(audio.models[model].quantity - before.quantity).toBe([...input].length);
    expect(audio.total_cost).toBeGreaterThan(audioBefore.total_cost);
  });
});
