/**
 * Who is calling. The auth middleware (auth.ts) resolves the API key to a {@link Caller} through the
 * directory (tenancy/directory.ts: users, workspaces, roles) and sets it on every `/v1` and `/v2` request.
 */
import type { Context } from 'hono';

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

/** The Hono environment of the platform's app and route modules: the values a request carries (`c.get('caller')`). */
export interface PlatformEnv {
  Variables: {
    /** Who is calling; set by the auth middleware on every `/v1` and `/v2` request (read it with `callerOf`). */
    caller?: Caller;
  };
}

/** The caller of an authenticated request. */
export function callerOf(c: Context<PlatformEnv>): Caller {
  const caller = c.get('caller');
  if (!caller) throw new Error('callerOf: the route is not behind the auth middleware');
  return caller;
}
