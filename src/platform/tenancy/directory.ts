/**
 * The local platform's directory: one organization with one workspace, the user of the API key
 * (workspace admin), the organization owner behind the admin key, and optional member users with
 * their own keys (plain members: no share permission until a role gives it).
 */
import { createHash } from 'node:crypto';
import type { Caller, Directory } from '../caller.js';
import type { Db } from '../store/db.js';

export interface MemberKey {
  apiKey: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface DirectoryOptions {
  apiKey: string;
  adminKey?: string;
  members?: MemberKey[];
}

/** A stable UUID derived from a name, so the seeded organization and users keep their ids across restarts. */
export function stableUuid(name: string): string {
  const h = createHash('sha256').update(`parley:${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function createDirectory(_db: Db, options: DirectoryOptions): Promise<Directory> {
  const organizationId = stableUuid('organization');
  const workspaceId = stableUuid('workspace:default');
  const callers = new Map<string, Caller & { admin: boolean }>();
  callers.set(options.apiKey, { kind: 'user', userId: stableUuid('user:owner'), organizationId, workspaceId, admin: true });
  if (options.adminKey) callers.set(options.adminKey, { kind: 'admin', userId: stableUuid('user:owner'), organizationId, workspaceId, admin: true });
  for (const m of options.members ?? []) {
    callers.set(m.apiKey, { kind: 'user', userId: stableUuid(`user:${m.email.toLowerCase()}`), organizationId, workspaceId, admin: false });
  }
  return {
    async authenticate(key) {
      const found = callers.get(key);
      if (!found) return null;
      const { admin: _admin, ...caller } = found;
      return caller;
    },
    async hasWorkspacePermission(caller) {
      return [...callers.values()].some((c) => c.userId === caller.userId && c.admin);
    },
    async admit() {},
  };
}
