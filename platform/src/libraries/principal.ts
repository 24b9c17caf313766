/** Who a caller is for library access: their user, organization and every workspace they belong to. */
import type { Caller } from '../http/caller.js';
import type { PlatformContext } from '../http/context.js';
import type { Principal } from './store.js';

/** The caller as library access entries name it (store.ts `Principal`). */
export async function principalOf(ctx: PlatformContext, caller: Caller): Promise<Principal> {
  const workspaces = await ctx.directory.tenancy.workspaces(caller);
  return { userId: caller.userId, organizationId: caller.organizationId, workspaceIds: [...new Set([caller.workspaceId, ...workspaces.map((w) => w.id)])] };
}
