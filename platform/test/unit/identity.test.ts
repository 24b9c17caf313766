// Identity (/v1/users/me…) through the official SDK (beta.users.*) and plain HTTP for bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { ADMIN_KEY, API_KEY, call, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ members: [{ apiKey: 'member-key', email: 'mo@example.com', firstName: 'Mo', lastName: 'Member' }] });
});
afterAll(async () => {
  await platform.close();
});

// These calls authenticate with the `x-api-key` header (security scheme DashboardUserContextAuth), given per call.
const security = { dashboardUserContextAuth: API_KEY };

describe('identity through the SDK', () => {
  it('getIdentity describes the key’s user, workspace, organization and key', async () => {
    const me = await sdkFor(platform).beta.users.getIdentity(security);
    expect(me).toMatchObject({ email: 'owner@parley.local', firstName: 'Local', lastName: 'Owner' });
    expect(me.workspace).toMatchObject({ name: 'Default workspace' });
    expect(me.organization).toMatchObject({ name: 'Local organization' });
    expect(me.apiKey).toMatchObject({ name: 'Default API key' });
    expect(me.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('listOrganizations and listWorkspaces return the caller’s, with offset and limit, as SDK pages', async () => {
    const sdk = sdkFor(platform);
    const orgs = (await sdk.beta.users.listOrganizations(security, {})).result;
    expect(orgs.organizations).toEqual([{ id: expect.any(String), name: 'Local organization' }]);
    const ws = (await sdk.beta.users.listWorkspaces(security, {})).result;
    expect(ws.workspaces).toEqual([{ id: expect.any(String), name: 'Default workspace', organizationId: orgs.organizations[0].id }]);
    expect((await sdk.beta.users.listWorkspaces(security, { offset: 1 })).result.workspaces).toEqual([]);
    expect((await sdk.beta.users.listWorkspaces(security, { organizationId: 'other' })).result.workspaces).toEqual([]);

    // Page iteration ends: a page shorter than `limit` is the last one.
    const pages = [];
    for await (const page of await sdk.beta.users.listOrganizations(security, { limit: 1 })) pages.push(page.result.organizations);
    expect(pages.flat()).toHaveLength(1);
  });
});

describe('identity over HTTP', () => {
  it('describes a member with their own key, and the admin key as the owner', async () => {
    const member = await call(platform, '/v1/users/me', { key: 'member-key' });
    expect(member.json).toMatchObject({ email: 'mo@example.com', first_name: 'Mo', last_name: 'Member', api_key: { name: 'API key of mo@example.com' } });
    const owner = await call(platform, '/v1/users/me');
    expect(member.json.id).not.toBe(owner.json.id);
    expect(member.json.workspace).toEqual(owner.json.workspace);
    const admin = await call(platform, '/v1/users/me', { key: ADMIN_KEY });
    expect(admin.json).toMatchObject({ id: owner.json.id, api_key: { name: 'Admin API key' } });
    expect((await call(platform, '/v1/users/me/workspaces', { key: 'member-key' })).json.workspaces).toHaveLength(1);
  });

  it('answers 422 for bad paging and 401 without a key', async () => {
    const res = await call(platform, '/v1/users/me/organizations?limit=0');
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['query', 'limit']);
    expect((await call(platform, '/v1/users/me/workspaces?limit=101')).status).toBe(422);
    expect((await call(platform, '/v1/users/me/workspaces?offset=-1')).status).toBe(422);
    expect((await call(platform, '/v1/users/me', { key: null })).status).toBe(401);
  });
});
