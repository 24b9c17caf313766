/**
 * The auth middleware of `/v1/*` and `/v2/*`: the API key (`Authorization: Bearer <key>`, or `x-api-key`)
 * becomes the request's {@link Caller}, then the directory admits the request under its rate and spend limits.
 */
import type { Context } from 'hono';
import type { Caller, PlatformEnv } from './caller.js';
import { unauthorized } from './errors.js';

/** What authentication asks of the directory (tenancy/directory.ts implements it). */
export interface KeyDirectory {
  /** The caller a key belongs to, or null when the key is unknown (→ 401). */
  authenticate(key: string): Promise<Caller | null>;
  /** Called on every authenticated request (its path) before its route: throws a 429 PlatformHttpError over a rate or spend limit. */
  admit(path: string): Promise<void>;
}

/**
 * The middleware. `presetCallers` holds requests the platform makes to itself for a caller (batch lines): their
 * caller is preset and no key is read. Only Request objects made inside this process are in the map, so no
 * outside request can claim it.
 */
export function authenticate(directory: KeyDirectory, presetCallers: WeakMap<Request, Caller>) {
  return async (c: Context<PlatformEnv>, next: () => Promise<void>): Promise<void> => {
    const preset = presetCallers.get(c.req.raw);
    if (preset) {
      c.set('caller', preset);
      return next();
    }
    const header = c.req.header('authorization');
    const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    const key = bearer ?? c.req.header('x-api-key');
    const caller = key ? await directory.authenticate(key) : null;
    if (!caller) throw unauthorized();
    c.set('caller', caller);
    await directory.admit(c.req.path);
    await next();
  };
}
