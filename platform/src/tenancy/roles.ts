/**
 * Roles and permissions of the local platform. Organization roles (`member`, `billing_manager`,
 * `organization_admin`) are the platform's documented names; the workspace roles and the permission
 * vocabulary are ours (the platform documents `A`/`M` codes and role UUIDs but not permission names).
 * The legacy one-letter codes map to the admin and member role of the scope they are used in.
 */
import { createHash } from 'node:crypto';

export type RoleScope = 'organization' | 'workspace';

/** Workspace permissions, checked through `Directory.hasWorkspacePermission`. */
export const WORKSPACE_PERMISSIONS = [
  'UseApi',
  'ViewUsage',
  'ManageApiKeys',
  'ManageWorkspaceMembers',
  'ShareConnectorToWorkspace',
] as const;

/** Organization permissions (recorded on roles; `ManageOrganization` implies every workspace permission everywhere). */
export const ORGANIZATION_PERMISSIONS = ['ViewOrganization', 'ManageBilling', 'ManageOrganization'] as const;

export interface BuiltinRole {
  name: string;
  description: string;
  scope: RoleScope;
  permissions: string[];
  /** The legacy one-letter code (`A` admin, `M` member) of this role in its scope. */
  code?: 'A' | 'M';
}

export const BUILTIN_ROLES: BuiltinRole[] = [
  { name: 'member', description: 'Organization member', scope: 'organization', permissions: ['ViewOrganization'], code: 'M' },
  { name: 'billing_manager', description: 'Manages billing and limits', scope: 'organization', permissions: ['ViewOrganization', 'ManageBilling'] },
  { name: 'organization_admin', description: 'Administers the organization', scope: 'organization', permissions: [...ORGANIZATION_PERMISSIONS], code: 'A' },
  { name: 'workspace_member', description: 'Uses the workspace API keys and views usage', scope: 'workspace', permissions: ['UseApi', 'ViewUsage'], code: 'M' },
  { name: 'workspace_admin', description: 'Full workspace control', scope: 'workspace', permissions: [...WORKSPACE_PERMISSIONS], code: 'A' },
];

/** A stable UUID derived from a name, so seeded rows keep their ids across restarts. */
export function stableUuid(name: string): string {
  const h = createHash('sha256').update(`parley:${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The id of a built-in role. */
export const builtinRoleId = (name: string) => stableUuid(`role:${name}`);
