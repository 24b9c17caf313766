// The admin API's group, invitation, rate limit and usage queries on a PostgreSQL server (the platform's
// other engine), where transactions are serializable and may run on several connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { ADMIN_KEY, ISO_Z, call, startPlatform } from './helpers.js';
import { freshDatabase, startPostgres, type PostgresServer } from './postgres-server.js';

let server: PostgresServer;
let platform: Platform;
const admin = (path: string, options: { method?: string; body?: unknown } = {}) => call(platform, path, { ...options, key: ADMIN_KEY });

beforeAll(async () => {
  server = await startPostgres();
  platform = await startPlatform({ databaseUrl: await freshDatabase(server.url), members: [{ apiKey: 'pg-member', email: 'pg@example.com', firstName: 'Pat', lastName: 'Gres' }] });
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await server?.dispose();
});

describe('admin on PostgreSQL', () => {
  it('nests groups (cycles refused), pages members and assigns workspaces', async () => {
    const group = async (name: string, extra: Record<string, unknown> = {}) => (await admin('/v1/admin/user-groups', { body: { name, ...extra } })).json.uuid as string;
    const a = await group('A');
    const b = await group('B', { parent_group_ids: [a] });
    expect((await admin(`/v1/admin/user-groups/${a}/nested`)).json).toEqual({ children: [{ name: 'B', uuid: b }] });
    const cycle = await admin(`/v1/admin/user-groups/${b}/nested`, { method: 'PATCH', body: { child_group_uuids: [a] } });
    expect(cycle.status).toBe(422);
    expect((await admin(`/v1/admin/user-groups/${a}/nested`, { method: 'PATCH', body: { child_group_uuids: [] } })).json).toEqual({ children: [] });

    const user = (await admin('/v1/admin/users?email=pg@example.com')).json.members[0];
    expect(user.is_sso_outsider).toBe(false);
    await admin(`/v1/admin/user-groups/${a}/members`, { body: { user_uuids: [user.uuid, user.uuid] } });
    expect((await admin(`/v1/admin/user-groups/${a}/members?page=1&page_size=5`)).json).toEqual({ page: 1, page_size: 5, total: 1, members: [{ user_uuid: user.uuid, email: 'pg@example.com', name: 'Pat Gres' }] });

    const workspace = (await call(platform, '/v1/users/me')).json.workspace.id;
    expect((await admin(`/v1/admin/user-groups/${a}/workspaces`, { body: { workspace_uuid: workspace, role: 'A' } })).status).toBe(200);
    expect((await admin(`/v1/admin/user-groups/${a}/workspaces`, { body: { workspace_uuid: workspace } })).status).toBe(409);
    await admin(`/v1/admin/user-groups/${a}/workspaces/${workspace}`, { method: 'PATCH', body: { role: 'M' } });
    const items = (await admin(`/v1/admin/user-groups/${a}/workspaces`)).json.items;
    expect(items).toMatchObject([{ workspace_uuid: workspace, roles: [{ name: 'workspace_member' }] }]);
    expect(items[0].created).toMatch(ISO_Z);
    expect((await admin(`/v1/admin/user-groups/${a}`, { method: 'DELETE' })).json).toEqual({ message: expect.any(String) });
  });

  it('invites the valid addresses, lists invitations, and reports limits and usage', async () => {
    const invited = await admin('/v1/admin/users-invite', { body: { email: 'new@example.com, pg@example.com, bad', workspace_uuids: [] } });
    expect(invited.json).toEqual({ already_members: ['pg@example.com'], invalid_emails: ['bad'], invited_members_count: 1 });
    expect((await admin('/v1/admin/users-invite')).json).toMatchObject([{ email: 'new@example.com', role: 'M', roles: ['M'] }]);
    const set = await admin('/v1/admin/rate-limit', { body: { requests_per_second: 900, tokens_limits_by_model: [{ model: 'm', tokens_per_minute: 1, tokens_per_month: 2 }] } });
    expect(set.json.tokens_limits_by_model).toEqual([{ model: 'm', tokens_per_minute: 1, tokens_per_month: 2 }]);
    expect((await admin('/v1/admin/spend-limit', { body: { amount: 12.5 } })).json.limits.completion.usage_limit).toBe(12.5);
    const usage = (await admin('/v1/admin/usage')).json;
    expect(usage).toMatchObject({ vibe_usage: 0, fine_tuning: { storage: {}, training: {} }, next_month: null });
  });
});
