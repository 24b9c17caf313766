// The tenancy schema's second migration on a database made by the first: existing group workspace
// assignments get a `created` time, invitations get empty seats and workspaces, groups are not externally managed.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/tenancy/migrations.js';
import { ISO_Z } from './helpers.js';

describe('tenancy migration 2', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
    await db.exec(MIGRATIONS[0]);
    await db.exec(`
      insert into tenancy_organizations values ('o', 'Org', '2025-01-01T00:00:00.000000Z');
      insert into tenancy_workspaces values ('w', 'o', 'Default', true, '2025-01-01T00:00:00.000000Z');
      insert into tenancy_groups (id, organization_id, name, target_type, created_at, updated_at) values ('g', 'o', 'G', 'W', 'x', 'x');
      insert into tenancy_group_workspaces values ('g', 'w', '[]');
      insert into tenancy_invites (id, organization_id, email, role_ids, created_at) values ('i', 'o', 'a@example.com', '[]', 'x');
    `);
    await db.exec(MIGRATIONS[1]);
  });
  afterAll(async () => {
    await db.close();
  });

  it('backfills the assignment time and defaults the new columns', async () => {
    const { rows: assignments } = await db.query<{ created_at: string }>('select created_at from tenancy_group_workspaces');
    expect(assignments[0].created_at).toMatch(ISO_Z);
    const { rows: invites } = await db.query<{ subscription_types: unknown; workspace_uuids: unknown }>('select subscription_types, workspace_uuids from tenancy_invites');
    expect(invites[0]).toEqual({ subscription_types: [], workspace_uuids: [] });
    const { rows: groups } = await db.query<{ externally_managed: boolean }>('select externally_managed from tenancy_groups');
    expect(groups[0].externally_managed).toBe(false);
    await expect(db.query(`insert into tenancy_group_workspaces (group_id, workspace_id, role_ids) values ('g', 'w', '[]')`)).rejects.toThrow();
  });
});
