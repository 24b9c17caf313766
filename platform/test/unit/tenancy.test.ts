// The tenancy foundation: workspace permissions through roles, groups (nested) and organization roles,
// as other areas check them (`hasWorkspacePermission`), and durability of the directory across reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { createDirectory } from '../../src/tenancy/directory.js';
import type { Caller } from '../../src/http/caller.js';
import type { Directory } from '../../src/tenancy/directory.js';
import { ADMIN_KEY, API_KEY, call, openPlatformDb, startPlatform } from './helpers.js';

const SHARE = 'ShareConnectorToWorkspace';

describe('workspace permissions', () => {
  let db: Db;
  let directory: Directory;
  let owner: Caller;
  let member: Caller;
  beforeAll(async () => {
    db = await openPlatformDb();
    directory = await createDirectory(db, { apiKey: 'k-owner', adminKey: 'k-admin', members: [{ apiKey: 'k-member', email: 'member@example.com' }] });
    owner = (await directory.authenticate('k-owner'))!;
    member = (await directory.authenticate('k-member'))!;
  });
  afterAll(async () => {
    await db.close();
  });

  it('resolves keys to callers; unknown keys to null', async () => {
    expect(owner).toMatchObject({ kind: 'user', workspaceId: member.workspaceId, organizationId: member.organizationId });
    expect(await directory.authenticate('k-admin')).toMatchObject({ kind: 'admin', userId: owner.userId });
    expect(member.userId).not.toBe(owner.userId);
    expect(await directory.authenticate('nope')).toBeNull();
  });

  it('gives the workspace admin the share permission and a plain member none', async () => {
    expect(await directory.hasWorkspacePermission(owner, SHARE)).toBe(true);
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(false);
    expect(await directory.hasWorkspacePermission(member, 'UseApi')).toBe(true);
  });

  it('grants it through a nested group provisioned with a custom role, and takes it back', async () => {
    const t = directory.tenancy;
    const role = await t.roles.create({ name: 'sharer', scope: 'workspace', permissions: [SHARE] });
    const parent = await t.groups.create({ name: 'Parent' });
    const child = await t.groups.create({ name: 'Child' });
    await t.groups.addChildren(parent.uuid, [child.uuid]);
    await t.groups.addMembers(child.uuid, [member.userId]);
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(false);

    await t.groups.provision({ user_group_uuid: parent.uuid, workspace_uuid: member.workspaceId, roles: [role.uuid] });
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(true);

    await t.groups.removeChildren(parent.uuid, [child.uuid]);
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(false);
  });

  it('grants every workspace permission to an organization admin (user role or group role)', async () => {
    const t = directory.tenancy;
    const group = await t.groups.create({ name: 'Admins', organization_role: 'organization_admin' });
    await t.groups.addMembers(group.uuid, [member.userId]);
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(true);
    await t.groups.delete(group.uuid);
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(false);

    await t.members.update(member.userId, { role_names: ['organization_admin'] });
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(true);
    await t.members.update(member.userId, { role_names: ['member'] });
    expect(await directory.hasWorkspacePermission(member, SHARE)).toBe(false);
  });

  it('gives the admin key every permission', async () => {
    expect(await directory.hasWorkspacePermission((await directory.authenticate('k-admin'))!, SHARE)).toBe(true);
  });
});

describe('durability', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-tenancy-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps users, invitations, groups, roles, limits and usage across a restart, with the same seeded ids', async () => {
    const options = { dataDir, members: [{ apiKey: 'member-key', email: 'm@example.com' }] };
    const first = await startPlatform(options);
    const admin = (path: string, body?: unknown, method?: string) => call(first, path, { key: ADMIN_KEY, body, method });
    const me = (await call(first, '/v1/users/me')).json;
    const created = (await admin('/v1/admin/users', [{ email: 'ada@example.com', first_name: 'Ada', last_name: 'L' }])).json.email_to_user_id['ada@example.com'];
    await admin('/v1/admin/users-invite', { email: 'grace@example.com' });
    const role = (await admin('/v1/admin/roles', { name: 'sharer', scope: 'workspace', permissions: ['ShareConnectorToWorkspace'] })).json.uuid;
    const group = (await admin('/v1/admin/user-groups', { name: 'Durable' })).json.uuid;
    const nested = (await admin('/v1/admin/user-groups', { name: 'Nested' })).json.uuid;
    await admin(`/v1/admin/user-groups/${group}/nested`, { child_group_uuids: [nested] }, 'PATCH');
    await admin(`/v1/admin/user-groups/${group}/members`, { user_uuids: [created] });
    const assignment = (await admin('/v1/admin/user-groups/provision-workspace', { user_group_uuid: group, workspace_uuid: me.workspace.id, roles: [role] })).json;
    await admin('/v1/admin/rate-limit', { requests_per_second: 77 });
    await admin('/v1/admin/spend-limit', { amount: 500 });
    expect((await call(first, '/v1/conversations', { body: { model: 'parley-local', inputs: 'Remember me' } })).status).toBe(200);
    const usage = (await admin('/v1/admin/usage')).json;
    await first.close();

    const second = await startPlatform(options);
    try {
      const again = (path: string) => call(second, path, { key: ADMIN_KEY });
      expect((await call(second, '/v1/users/me')).json).toEqual(me);
      expect((await again(`/v1/admin/users/${created}`)).json.email).toBe('ada@example.com');
      expect((await again('/v1/admin/users-invite')).json.map((i: any) => i.email)).toEqual(['grace@example.com']);
      expect((await again(`/v1/admin/roles/${role}`)).json.name).toBe('sharer');
      expect((await again(`/v1/admin/user-groups/${group}`)).json).toMatchObject({ name: 'Durable', child_group_uuids: [nested] });
      expect((await again(`/v1/admin/user-groups/${nested}`)).json).toMatchObject({ name: 'Nested', parent_group_ids: [group] });
      expect((await again(`/v1/admin/user-groups/${group}/nested`)).json).toEqual({ children: [{ name: 'Nested', uuid: nested }] });
      expect((await again(`/v1/admin/user-groups/${group}/members`)).json.members.map((u: any) => u.user_uuid)).toEqual([created]);
      const assignments = (await again(`/v1/admin/user-groups/${group}/workspaces`)).json.items;
      expect(assignments[0].roles[0].uuid).toBe(role);
      expect(assignments[0].created).toBe(assignment.created);
      expect((await again('/v1/admin/rate-limit')).json.requests_per_second).toBe(77);
      expect((await again('/v1/admin/spend-limit')).json.limits.completion.monthly_limit).toBe(500);
      expect((await again('/v1/admin/usage')).json).toEqual(usage);
      expect((await call(second, '/v1/models', { key: 'member-key' })).status).toBe(200);
      expect((await call(second, '/v1/models', { key: API_KEY })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('stops accepting a key that is no longer configured', async () => {
    const p = await startPlatform({ dataDir, apiKey: 'rotated-key' });
    try {
      expect((await call(p, '/v1/models', { key: API_KEY })).status).toBe(401);
      expect((await call(p, '/v1/models', { key: 'rotated-key' })).status).toBe(200);
    } finally {
      await p.close();
    }
  });
});
