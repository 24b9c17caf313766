/**
 * Who is calling. The auth middleware resolves the API key to a {@link Caller} through the
 * {@link Directory} (users, workspaces, roles) and sets it on every `/v1` and `/v2` request.
 */
import type { Context } from 'hono';
import type { PlatformEnv } from './context.js';
import type { Tenancy } from './tenancy/directory.js';

export interface Caller {
  /** `admin` for the admin key (the only key `/v1/admin/*` accepts); `user` for a user's API key. */
  kind: 'user' | 'admin';
  /** The user the key belongs to (the admin key belongs to the organization's owner). */
  userId: string;
  organizationId: string;
  /** The workspace the key was issued in. */
  workspaceId: string;
  /** The id of the API key used (shown by `/v1/users/me`). */
  apiKeyId?: string;
}

/** Users, organizations, workspaces, roles and the limits enforced on callers. */
export interface Directory {
  /** The caller a key belongs to, or null when the key is unknown (→ 401). */
  authenticate(key: string): Promise<Caller | null>;
  /** Whether the caller holds a workspace permission (e.g. `ShareConnectorToWorkspace`) through its roles and groups. */
  hasWorkspacePermission(caller: Caller, permission: string): Promise<boolean>;
  /** Called on every authenticated request (its path) before its route: throws a 429 PlatformHttpError over a rate or spend limit. */
  admit(path: string): Promise<void>;
  /** The organization's members, invitations, groups, roles and limits (admin API) and the caller's identity. */
  readonly tenancy: Tenancy;
}

/** The caller of an authenticated request. */
export function callerOf(c: Context<PlatformEnv>): Caller {
  const caller = c.get('caller');
  if (!caller) throw new Error('callerOf: the route is not behind the auth middleware');
  return caller;
}
