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
    expect(owner).toMatchObject({ raw_role: 'A', raw_roles: ['A'], roles: [{ name: 'organization_admin' }], is_sso_outsider: false });
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

    const gone = await admin(`/v1/admin/users/${alanId}`, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect(gone.json).toEqual({ message: expect.any(String) });
    expect(gone.json.message.length).toBeGreaterThan(0);
    expect((await admin(`/v1/admin/users/${alanId}`)).json).toMatchObject({ object: 'error', code: 'not_found' });
    expect((await admin(`/v1/admin/users/${alanId}`, { method: 'DELETE' })).status).toBe(404);
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
      expect((await call(other, `/v1/admin/users/${gone.uuid}`, { method: 'DELETE', key: ADMIN_KEY })).status).toBe(200);
      expect((await call(other, '/v1/models', { key: 'gone-key' })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('members', () => {
  it('carry is_sso_outsider (false: every member comes from the local directory) in the Member record', async () => {
    const mia = (await admin('/v1/admin/users?email=mia@example.com')).json.members[0];
    const one = await admin(`/v1/admin/users/${mia.uuid}`);
    expect(one.status).toBe(200);
    for (const key of ['uuid', 'created_at', 'email', 'name', 'first_name', 'last_name', 'oid_id', 'raw_role', 'raw_roles', 'subscription_types', 'is_sso_outsider']) {
      expect(one.json, key).toHaveProperty(key);
    }
    expect(one.json.is_sso_outsider).toBe(false);
    expect(mia.is_sso_outsider).toBe(false);
    const patched = await admin(`/v1/admin/users/${mia.uuid}`, { method: 'PATCH', body: { subscription_types: ['CHAT'] } });
    expect(patched.json).toMatchObject({ is_sso_outsider: false, subscription_types: ['CHAT'] });
  });
});

describe('invitations', () => {
  it('invites several comma- or newline-separated emails; the users listing shows them', async () => {
    const res = await admin('/v1/admin/users-invite', { body: { email: 'grace@example.com, Katherine@example.com\nhedy@example.com', role_names: ['member'] } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ already_members: [], invalid_emails: [], invited_members_count: 3 });

    const users = await admin('/v1/admin/users?email=grace@example.com');
    expect(users.json.members).toHaveLength(0);
    expect(users.json.invites).toHaveLength(1);
    const invite = users.json.invites[0];
    for (const key of ['uuid', 'created_at', 'email', 'expired', 'raw_role', 'raw_roles']) expect(invite, key).toHaveProperty(key);
    expect(invite).toMatchObject({ email: 'grace@example.com', expired: false, raw_role: 'M', raw_roles: ['M'] });
    expect(invite.uuid).toMatch(UUID);
    expect(invite.created_at).toMatch(ISO_Z);
  });

  it('lists pending invitations as a bare array of {invite_uuid, email, role, roles}', async () => {
    await admin('/v1/admin/users-invite', { body: { email: 'listed@example.com', role: 'A' } });
    const list = await admin('/v1/admin/users-invite');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.json)).toBe(true);
    const listed = list.json.find((i: any) => i.email === 'listed@example.com');
    expect(listed).toEqual({ invite_uuid: expect.stringMatching(UUID), email: 'listed@example.com', role: 'A', roles: ['A'], created_at: expect.stringMatching(ISO_Z) });
    const billing = (await admin('/v1/admin/roles')).json.organization_roles.find((r: any) => r.name === 'billing_manager');
    await admin('/v1/admin/users-invite', { body: { email: 'billing@example.com', role_names: ['billing_manager'] } });
    const billed = (await admin('/v1/admin/users-invite')).json.find((i: any) => i.email === 'billing@example.com');
    expect(billed).toMatchObject({ role: billing.uuid, roles: [billing.uuid] });
    for (const item of list.json) {
      expect(item).not.toHaveProperty('uuid');
      expect(Array.isArray(item.roles)).toBe(true);
      expect(typeof item.role).toBe('string');
    }
  });

  it('deletes an invitation with 200 {message}, then 404', async () => {
    await admin('/v1/admin/users-invite', { body: { email: 'temporary@example.com' } });
    const id = (await admin('/v1/admin/users-invite')).json.find((i: any) => i.email === 'temporary@example.com').invite_uuid;
    const res = await admin(`/v1/admin/users-invite/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: expect.any(String) });
    expect((await admin('/v1/admin/users-invite')).json.some((i: any) => i.email === 'temporary@example.com')).toBe(false);
    expect((await admin(`/v1/admin/users-invite/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('reports members in already_members and malformed addresses in invalid_emails, and invites the rest', async () => {
    const res = await admin('/v1/admin/users-invite', { body: { email: 'fresh@example.com, nope, Mia@Example.com, also-fresh@example.com', role_names: ['member'] } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ already_members: ['mia@example.com'], invalid_emails: ['nope'], invited_members_count: 2 });
    const emails = (await admin('/v1/admin/users-invite')).json.map((i: any) => i.email);
    expect(emails).toEqual(expect.arrayContaining(['fresh@example.com', 'also-fresh@example.com']));
    expect(emails).not.toContain('mia@example.com');
    expect(emails).not.toContain('nope');

    const none = await admin('/v1/admin/users-invite', { body: { email: 'bad-one, mia@example.com' } });
    expect(none.json).toEqual({ already_members: ['mia@example.com'], invalid_emails: ['bad-one'], invited_members_count: 0 });
  });

  it('records seats and workspaces of an invitation, and refuses bad role fields, unknown workspaces or no address with 422', async () => {
    const workspace = (await call(platform, '/v1/users/me')).json.workspace.id;
    await admin('/v1/admin/users-invite', { body: { email: 'seated@example.com', subscription_types: ['CHAT'], workspace_uuids: [workspace], email_language: 'fr', subscription_seat_automatic_granting: true } });
    expect((await admin('/v1/admin/users?email=seated@example.com')).json.invites[0]).toMatchObject({ workspace_uuids: [workspace], subscription_types: ['CHAT'] });

    expect((await admin('/v1/admin/users-invite', { body: { email: 'ok@example.com', role: 'M', roles: ['M'] } })).status).toBe(422);
    const ws = await admin('/v1/admin/users-invite', { body: { email: 'ok@example.com', workspace_uuids: ['nowhere'] } });
    expect(ws.status).toBe(422);
    expect(ws.json.detail[0].loc).toEqual(['body', 'workspace_uuids', 0]);
    expect((await admin('/v1/admin/users-invite', { body: { email: ' , ' } })).status).toBe(422);
    expect((await admin('/v1/admin/users-invite', { body: { email: 'ok@example.com', email_language: 'klingon' } })).status).toBe(422);
    expect((await admin('/v1/admin/users-invite', { body: {} })).json.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'missing' });
    expect((await admin('/v1/admin/users-invite')).json.some((i: any) => i.email === 'ok@example.com')).toBe(false);
  });
});

describe('roles', () => {
  it('lists organization_roles and workspace_roles, each Role with uuid, name, description and is_custom_role', async () => {
    const list = await admin('/v1/admin/roles');
    expect(list.status).toBe(200);
    expect(list.json.organization_roles.map((r: any) => r.name)).toEqual(['member', 'billing_manager', 'organization_admin']);
    expect(list.json.workspace_roles.map((r: any) => r.name)).toEqual(['workspace_member', 'workspace_admin']);
    for (const role of [...list.json.organization_roles, ...list.json.workspace_roles]) {
      expect(role).toMatchObject({ uuid: expect.stringMatching(UUID), name: expect.any(String), description: expect.any(String), is_custom_role: false });
    }
    const wsAdmin = list.json.workspace_roles.find((r: any) => r.name === 'workspace_admin');
    expect(wsAdmin.permissions).toContain('ShareConnectorToWorkspace');

    const created = await admin('/v1/admin/roles', { body: { name: 'auditor', scope: 'organization', permissions: ['ViewOrganization'] } });
    expect(created.json).toMatchObject({ name: 'auditor', description: '', is_custom_role: true });
    const after = await admin('/v1/admin/roles');
    expect(after.json.organization_roles.find((r: any) => r.name === 'auditor')).toMatchObject({ uuid: created.json.uuid, is_custom_role: true });
    expect(after.json.workspace_roles.some((r: any) => r.name === 'auditor')).toBe(false);
    expect((await admin(`/v1/admin/roles/${created.json.uuid}`, { method: 'DELETE' })).json).toEqual({ message: expect.any(String) });
  });

  it('creates, reads and deletes a custom role; built-in and assigned roles are refused (409)', async () => {
    const wsAdmin = (await admin('/v1/admin/roles')).json.workspace_roles.find((r: any) => r.name === 'workspace_admin');
    const created = await admin('/v1/admin/roles', { body: { name: 'connector_sharer', scope: 'workspace', permissions: ['UseApi', 'ShareConnectorToWorkspace'] } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ name: 'connector_sharer', builtin: false, is_custom_role: true, code: null, permissions: ['UseApi', 'ShareConnectorToWorkspace'] });
    expect((await admin(`/v1/admin/roles/${created.json.uuid}`)).json.name).toBe('connector_sharer');
    expect((await admin('/v1/admin/roles', { body: { name: 'connector_sharer', scope: 'workspace', permissions: ['UseApi'] } })).status).toBe(409);
    expect((await admin(`/v1/admin/roles/${wsAdmin.uuid}`, { method: 'DELETE' })).status).toBe(409);
    const group = (await admin('/v1/admin/user-groups', { body: { name: 'Sharers' } })).json.uuid;
    const workspace = (await call(platform, '/v1/users/me')).json.workspace.id;
    await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, roles: [created.json.uuid] } });
    const inUse = await admin(`/v1/admin/roles/${created.json.uuid}`, { method: 'DELETE' });
    expect(inUse.status).toBe(409);
    expect(inUse.json.message).toContain('still assigned');
    expect((await admin(`/v1/admin/user-groups/${group}`, { method: 'DELETE' })).status).toBe(200);
    expect((await admin(`/v1/admin/roles/${created.json.uuid}`, { method: 'DELETE' })).status).toBe(200);
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

const newGroup = async (name: string, extra: Record<string, unknown> = {}) => (await admin('/v1/admin/user-groups', { body: { name, ...extra } })).json.uuid as string;

describe('user groups', () => {
  it('creates, lists, reads, updates and deletes groups (User group record with parent_group_ids)', async () => {
    const created = await admin('/v1/admin/user-groups', { body: { name: 'Interns', description: 'Summer interns' } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ name: 'Interns', description: 'Summer interns', target_type: 'W', organization_role: null, externally_managed: false, parent_group_ids: [] });
    expect(created.json).not.toHaveProperty('parent_group_uuids');
    const id = created.json.uuid;
    expect(id).toMatch(UUID);

    const list = await admin('/v1/admin/user-groups?search=intern');
    expect(list.json).toMatchObject({ page: 1, page_size: 100, total: 1 });
    expect(list.json.items[0]).toMatchObject({ uuid: id, parent_group_ids: [] });

    const patched = await admin(`/v1/admin/user-groups/${id}`, { method: 'PATCH', body: { description: 'Updated', organization_role: 'billing_manager' } });
    expect(patched.json).toMatchObject({ name: 'Interns', description: 'Updated', organization_role: 'billing_manager' });
    const cleared = await admin(`/v1/admin/user-groups/${id}`, { method: 'PATCH', body: { organization_role: null } });
    expect(cleared.json.organization_role).toBeNull();
    expect((await admin(`/v1/admin/user-groups/${id}`, { method: 'PATCH', body: { organization_role: 'workspace_admin' } })).status).toBe(422);

    const gone = await admin(`/v1/admin/user-groups/${id}`, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect(gone.json).toEqual({ message: expect.any(String) });
    expect((await admin(`/v1/admin/user-groups/${id}`)).status).toBe(404);
    expect((await admin('/v1/admin/user-groups', { body: { description: 'no name' } })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups', { body: { name: 'x', target_type: 'Z' } })).status).toBe(422);
  });

  it('nests a new group inside parent_group_ids, replaces them on PATCH and refuses a cycle', async () => {
    const top = await newGroup('Top');
    const mid = await newGroup('Mid', { parent_group_ids: [top] });
    expect((await admin(`/v1/admin/user-groups/${mid}`)).json.parent_group_ids).toEqual([top]);
    expect((await admin(`/v1/admin/user-groups/${top}/nested`)).json).toEqual({ children: [{ name: 'Mid', uuid: mid }] });
    const other = await newGroup('Other');
    const moved = await admin(`/v1/admin/user-groups/${mid}`, { method: 'PATCH', body: { parent_group_ids: [other] } });
    expect(moved.json.parent_group_ids).toEqual([other]);
    expect((await admin(`/v1/admin/user-groups/${top}/nested`)).json.children).toEqual([]);
    const cycle = await admin(`/v1/admin/user-groups/${other}`, { method: 'PATCH', body: { parent_group_ids: [mid] } });
    expect(cycle.status).toBe(422);
    expect(cycle.json.detail[0]).toMatchObject({ loc: ['body', 'parent_group_ids', 0], type: 'value_error' });
    expect((await admin('/v1/admin/user-groups', { body: { name: 'Orphan', parent_group_ids: ['missing'] } })).status).toBe(422);
    expect((await admin(`/v1/admin/user-groups/${mid}`, { method: 'PATCH', body: { parent_group_ids: [] } })).json.parent_group_ids).toEqual([]);
  });

  it('records the other group fields of a create or update body: target_type and externally_managed', async () => {
    const created = await admin('/v1/admin/user-groups', { body: { name: 'Synced', target_type: 'O', externally_managed: true, organization_role: 'M' } });
    expect(created.json).toMatchObject({ name: 'Synced', description: null, target_type: 'O', externally_managed: true, organization_role: 'member' });
    const patched = await admin(`/v1/admin/user-groups/${created.json.uuid}`, { method: 'PATCH', body: { externally_managed: false } });
    expect(patched.json).toMatchObject({ target_type: 'O', externally_managed: false, organization_role: 'member' });
  });

  it('lists members as {page, page_size, total, members: [{user_uuid, email, name}]}; adds and removes them', async () => {
    const group = await newGroup('Team');
    const mia = (await admin('/v1/admin/users?email=mia@example.com')).json.members[0];
    const owner = (await admin('/v1/admin/users?email=owner@parley.local')).json.members[0];
    const added = await admin(`/v1/admin/user-groups/${group}/members`, { body: { user_uuids: [mia.uuid, owner.uuid] } });
    expect(added.status).toBe(200);
    const list = await admin(`/v1/admin/user-groups/${group}/members`);
    expect(list.json).toEqual({
      page: 1, page_size: 100, total: 2,
      members: [{ user_uuid: owner.uuid, email: 'owner@parley.local', name: 'Local Owner' }, { user_uuid: mia.uuid, email: 'mia@example.com', name: 'Mia Member' }],
    });
    const second = await admin(`/v1/admin/user-groups/${group}/members?page=2&page_size=1`);
    expect(second.json).toEqual({ page: 2, page_size: 1, total: 2, members: [{ user_uuid: mia.uuid, email: 'mia@example.com', name: 'Mia Member' }] });

    const unknown = await admin(`/v1/admin/user-groups/${group}/members`, { body: { user_uuids: [mia.uuid, 'nobody'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['body', 'user_uuids', 1]);
    const removed = await admin(`/v1/admin/user-groups/${group}/members`, { method: 'DELETE', body: { user_uuids: [mia.uuid] } });
    expect(removed.status).toBe(200);
    expect((await admin(`/v1/admin/user-groups/${group}/members`)).json.members.map((m: any) => m.user_uuid)).toEqual([owner.uuid]);
    expect((await admin('/v1/admin/user-groups/nope/members')).status).toBe(404);
    expect((await admin(`/v1/admin/user-groups/${group}/members`, { body: { user_uuids: [] } })).status).toBe(422);
    expect((await admin(`/v1/admin/user-groups/${group}/members?page=0`)).status).toBe(422);
  });

  it('GET …/nested answers {children: [{name, uuid}]}; PATCH replaces the set and refuses a cycle with 422', async () => {
    const a = await newGroup('A');
    const b = await newGroup('B');
    const c = await newGroup('C');
    expect((await admin(`/v1/admin/user-groups/${a}/nested`)).json).toEqual({ children: [] });
    const set = await admin(`/v1/admin/user-groups/${a}/nested`, { method: 'PATCH', body: { child_group_uuids: [b, c] } });
    expect(set.status).toBe(200);
    expect((await admin(`/v1/admin/user-groups/${a}/nested`)).json).toEqual({ children: [{ name: 'B', uuid: b }, { name: 'C', uuid: c }] });
    expect((await admin(`/v1/admin/user-groups/${b}`)).json.parent_group_ids).toEqual([a]);

    // Replacing, not adding: C alone remains.
    await admin(`/v1/admin/user-groups/${a}/nested`, { method: 'PATCH', body: { child_group_uuids: [c] } });
    expect((await admin(`/v1/admin/user-groups/${a}/nested`)).json).toEqual({ children: [{ name: 'C', uuid: c }] });
    expect((await admin(`/v1/admin/user-groups/${b}`)).json.parent_group_ids).toEqual([]);

    const cycle = await admin(`/v1/admin/user-groups/${c}/nested`, { method: 'PATCH', body: { child_group_uuids: [b, a] } });
    expect(cycle.status).toBe(422);
    expect(cycle.json.detail[0]).toMatchObject({ loc: ['body', 'child_group_uuids', 1], type: 'value_error' });
    expect(cycle.json.detail[0].msg).toContain('cycle');
    expect((await admin(`/v1/admin/user-groups/${c}/nested`)).json).toEqual({ children: [] });
    expect((await admin(`/v1/admin/user-groups/${a}/nested`, { method: 'PATCH', body: { child_group_uuids: [a] } })).status).toBe(422);
    expect((await admin(`/v1/admin/user-groups/${a}/nested`, { method: 'PATCH', body: { child_group_uuids: ['missing'] } })).status).toBe(422);
    expect((await admin(`/v1/admin/user-groups/${a}/nested`, { method: 'PATCH', body: {} })).status).toBe(422);

    await admin(`/v1/admin/user-groups/${a}/nested`, { method: 'PATCH', body: { child_group_uuids: [] } });
    expect((await admin(`/v1/admin/user-groups/${a}/nested`)).json).toEqual({ children: [] });
    expect((await admin(`/v1/admin/user-groups/${c}/nested`, { method: 'PATCH', body: { child_group_uuids: [a] } })).status).toBe(200);
    expect((await admin('/v1/admin/user-groups/missing/nested')).status).toBe(404);
  });

  it('PATCH …/organization-role sets the organization role of a group', async () => {
    const group = await newGroup('Billing');
    const res = await admin(`/v1/admin/user-groups/${group}/organization-role`, { method: 'PATCH', body: { organization_role: 'billing_manager' } });
    expect(res.status).toBe(200);
    expect((await admin(`/v1/admin/user-groups/${group}`)).json.organization_role).toBe('billing_manager');
    await admin(`/v1/admin/user-groups/${group}/organization-role`, { method: 'PATCH', body: { organization_role: 'A' } });
    expect((await admin(`/v1/admin/user-groups/${group}`)).json.organization_role).toBe('organization_admin');
    const wrong = await admin(`/v1/admin/user-groups/${group}/organization-role`, { method: 'PATCH', body: { organization_role: 'workspace_admin' } });
    expect(wrong.status).toBe(422);
    expect(wrong.json.detail[0].loc).toEqual(['body', 'organization_role']);
    expect((await admin(`/v1/admin/user-groups/${group}/organization-role`, { method: 'PATCH', body: {} })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups/missing/organization-role', { method: 'PATCH', body: { organization_role: 'M' } })).status).toBe(404);
  });

  it('lists workspace assignments as {page, page_size, total, items: [{workspace_uuid, workspace_name, created, roles}]}', async () => {
    const group = await newGroup('Ops');
    const workspace = (await call(platform, '/v1/users/me/workspaces')).json.workspaces[0].id;
    const res = await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role_names: ['workspace_admin'] } });
    expect(res.status).toBe(200);
    const list = await admin(`/v1/admin/user-groups/${group}/workspaces`);
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ page: 1, page_size: 100, total: 1 });
    const [item] = list.json.items;
    expect(item).toMatchObject({ workspace_uuid: workspace, workspace_name: 'Default workspace', roles: [{ name: 'workspace_admin', uuid: expect.stringMatching(UUID) }] });
    expect(item.created).toMatch(ISO_Z);
    expect(Object.keys(item.roles[0]).sort()).toEqual(['name', 'uuid']);
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces?page=2&page_size=1`)).json).toEqual({ page: 2, page_size: 1, total: 1, items: [] });

    const again = await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, workspace_role: 'M' } });
    expect(again.json.roles).toEqual([expect.objectContaining({ name: 'workspace_member' })]);
    expect(again.json.created).toBe(item.created);
    expect((await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role_names: ['organization_admin'] } })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role: 'A', role_names: ['workspace_admin'] } })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: workspace, role: 'A', workspace_role: 'M' } })).status).toBe(422);
    expect((await admin('/v1/admin/user-groups/provision-workspace', { body: { user_group_uuid: group, workspace_uuid: 'nope' } })).status).toBe(404);

    const removed = await admin(`/v1/admin/user-groups/${group}/workspaces/${workspace}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ message: expect.any(String) });
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces/${workspace}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('POST …/workspaces assigns the group to workspace_uuid; PATCH …/workspaces/{workspace_uuid} changes its roles', async () => {
    const group = await newGroup('Assigned');
    const workspace = (await call(platform, '/v1/users/me')).json.workspace.id;
    const assigned = await admin(`/v1/admin/user-groups/${group}/workspaces`, { body: { workspace_uuid: workspace } });
    expect(assigned.status).toBe(200);
    expect(assigned.json).toMatchObject({ workspace_uuid: workspace, workspace_name: 'Default workspace', roles: [{ name: 'workspace_member' }] });
    expect(assigned.json.created).toMatch(ISO_Z);
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces`)).json.items.map((w: any) => w.workspace_uuid)).toEqual([workspace]);
    const twice = await admin(`/v1/admin/user-groups/${group}/workspaces`, { body: { workspace_uuid: workspace } });
    expect(twice.status).toBe(409);
    expect(twice.json).toMatchObject({ object: 'error', code: 'conflict' });

    const patched = await admin(`/v1/admin/user-groups/${group}/workspaces/${workspace}`, { method: 'PATCH', body: { role_names: ['workspace_admin'] } });
    expect(patched.status).toBe(200);
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces`)).json.items[0].roles.map((r: any) => r.name)).toEqual(['workspace_admin']);
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces/${workspace}`, { method: 'PATCH', body: {} })).status).toBe(422);
    expect((await admin(`/v1/admin/user-groups/${group}/workspaces/${workspace}`, { method: 'PATCH', body: { role_names: ['member'] } })).status).toBe(422);
    const other = await newGroup('Unassigned');
    expect((await admin(`/v1/admin/user-groups/${other}/workspaces/${workspace}`, { method: 'PATCH', body: { role: 'A' } })).status).toBe(404);
    expect((await admin(`/v1/admin/user-groups/${other}/workspaces`, { body: { workspace_uuid: 'nowhere' } })).status).toBe(404);
    expect((await admin(`/v1/admin/user-groups/${other}/workspaces`, { body: {} })).status).toBe(422);
  });
});

describe('rate limit', () => {
  it('answers tokens_limits_by_model as an array of {tokens_per_minute, tokens_per_month} items (one per model)', async () => {
    expect((await admin('/v1/admin/rate-limit')).json).toEqual({ requests_per_second: 1000, tokens_limits_by_model: [] });
    try {
      const set = await admin('/v1/admin/rate-limit', { body: { requests_per_second: 500, tokens_limits_by_model: { 'parley-local': { tokens_per_minute: 1000, tokens_per_month: 100000 } } } });
      const expected = { requests_per_second: 500, tokens_limits_by_model: [{ model: 'parley-local', tokens_per_minute: 1000, tokens_per_month: 100000 }] };
      expect(set.json).toEqual(expected);
      expect((await admin('/v1/admin/rate-limit')).json).toEqual(expected);
      const asArray = await admin('/v1/admin/rate-limit', { body: { requests_per_second: 500, tokens_limits_by_model: [{ model: 'parley-infill', tokens_per_minute: 5, tokens_per_month: 50 }] } });
      expect(asArray.json.tokens_limits_by_model).toEqual([{ model: 'parley-infill', tokens_per_minute: 5, tokens_per_month: 50 }]);
    } finally {
      await admin('/v1/admin/rate-limit', { body: { requests_per_second: 1000, tokens_limits_by_model: [] } });
    }
  });

  it('is enforced by the platform: 429 with Retry-After over requests_per_second, then recovers', async () => {
    await admin('/v1/admin/rate-limit', { body: { requests_per_second: 2 } });
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
    expect((await admin('/v1/admin/rate-limit', { body: { requests_per_second: 5, tokens_limits_by_model: [{ tokens_per_minute: 1, tokens_per_month: 1 }] } })).status).toBe(422);
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
    expect(report.json.total_cost).toBeCloseTo(report.json.completion.total_cost + report.json.audio.total_cost + report.json.audio_characters.total_cost + report.json.ocr.total_cost, 12);

    const otherWorkspace = await admin(`/v1/admin/usage?workspace_id=elsewhere`);
    expect(otherWorkspace.json.total_cost).toBe(0);
    const lastYear = await admin(`/v1/admin/usage?month=${month}&year=${year - 1}`);
    expect(lastYear.json.completion.models).toEqual({});
    expect((await admin('/v1/admin/usage?month=13')).status).toBe(422);

    // Spend limit: a limit at or under the month's cost suspends the API until lifted.
    const spend = (await admin('/v1/admin/spend-limit')).json;
    expect(spend.limits).toMatchObject({ completion: { monthly_limit: null, monthly_limit_reached: false, no_monthly_limit: true }, currency: 'EUR', last_payment_failure: false, last_payment_failure_protection: null });
    expect(spend.limits.completion.usage).toBeCloseTo(report.json.total_cost, 12);
    const set = await admin('/v1/admin/spend-limit', { body: { amount: 0 } });
    expect(set.json.limits.completion).toMatchObject({ monthly_limit: 0, monthly_limit_reached: true });
    try {
      const refused = await call(platform, '/v1/models');
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ object: 'error', type: 'rate_limited', code: 'spend_limit_reached' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const raised = await admin('/v1/admin/spend-limit', { body: { amount: 999.5 } });
      expect(raised.json.limits.completion).toMatchObject({ monthly_limit: 999.5, usage_limit: 999.5, monthly_limit_reached: false, no_monthly_limit: false });
      expect((await call(platform, '/v1/models')).status).toBe(200);
    } finally {
      const lifted = await admin('/v1/admin/spend-limit', { body: { no_monthly_limit: true } });
      expect(lifted.json.limits.completion.monthly_limit).toBeNull();
    }
    expect((await call(platform, '/v1/models')).status).toBe(200);
    expect((await admin('/v1/admin/spend-limit', { body: {} })).json.detail[0]).toMatchObject({ loc: ['body', 'amount'], type: 'missing' });
    expect((await admin('/v1/admin/spend-limit', { body: { amount: -5 } })).status).toBe(422);
  });

  it('counts speech by characters in audio_characters', async () => {
    const blockBefore = (await admin('/v1/admin/usage')).json.audio_characters;
    const audioBefore = (await admin('/v1/admin/usage')).json.audio;
    const input = 'Bonjour à tous.';
    const res = await call(platform, '/v1/audio/speech', { body: { input, response_format: 'pcm' } });
    expect(res.status).toBe(200);
    const report = (await admin('/v1/admin/usage')).json;
    const block = report.audio_characters;
    const [model] = Object.keys(block.models);
    const before = blockBefore.models[model] ?? { requests: 0, quantity: 0 };
    expect(block.models[model]).toMatchObject({ unit: 'characters', input_tokens: 0, output_tokens: 0 });
    expect(block.models[model].requests - before.requests).toBe(1);
    expect(block.models[model].quantity - before.quantity).toBe([...input].length);
    expect(block.total_cost).toBeGreaterThan(blockBefore.total_cost);
    expect(report.audio).toEqual(audioBefore);
  });

  it('has every block of the usage report table, with <product>_usage the integer 0', async () => {
    const month = new Date().getUTCMonth() + 1;
    const year = new Date().getUTCFullYear();
    const res = await admin(`/v1/admin/usage?month=${month}&year=${year}`);
    expect(res.status).toBe(200);
    const r = res.json;
    for (const key of ['audio', 'audio_characters', 'chat', 'completion', 'connectors', 'ocr']) {
      expect(r[key], key).toHaveProperty('models');
      expect(typeof r[key].models, key).toBe('object');
    }
    expect(r.fine_tuning).toEqual({ storage: {}, training: {} });
    expect(Object.keys(r.libraries_api).sort()).toEqual(['audio_seconds', 'pages', 'tokens']);
    for (const key of ['audio_seconds', 'pages', 'tokens']) expect(r.libraries_api[key].models, key).toEqual({});
    expect(Object.keys(r.vibe_code).sort()).toEqual(['audio', 'audio_characters', 'completion', 'connectors', 'ocr']);
    for (const key of Object.keys(r.vibe_code)) expect(r.vibe_code[key].models, key).toEqual({});
    expect(r.vibe_usage).toBe(0);
    expect(Number.isInteger(r.vibe_usage)).toBe(true);
    expect(r).toMatchObject({ currency: 'EUR', currency_symbol: '€' });
    for (const key of ['date', 'start_date', 'end_date', 'previous_month']) expect(r[key], key).toMatch(ISO_Z);
    expect(r.previous_month.slice(0, 7)).toBe(month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`);
    expect(r.end_date.slice(0, 7)).toBe(month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`);
    expect(r.next_month).toBeNull(); // the current month: the next one has not begun
    expect(r.prices.length).toBeGreaterThan(0);
    for (const price of r.prices) {
      expect(price).toMatchObject({ event_type: expect.any(String), billing_metric: expect.any(String), billing_group: expect.any(String), api_zone: 'global', service_tier: 'standard' });
      expect(price.price).toBeGreaterThan(0);
    }
    expect(r.prices.map((p: any) => p.billing_metric)).toEqual(expect.arrayContaining(['input_tokens', 'output_tokens', 'audio_characters', 'audio_seconds', 'pages']));

    const past = (await admin(`/v1/admin/usage?month=1&year=${year - 1}`)).json;
    expect(past.next_month).toBe(`${year - 1}-02-01T00:00:00.000000Z`);
    expect(past.previous_month).toBe(`${year - 2}-12-01T00:00:00.000000Z`);
  });
});
