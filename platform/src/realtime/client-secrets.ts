/**
 * Short-lived `rt_` client secrets (`POST /v1/client/sessions`) that let a browser open the realtime WebSocket
 * without the API key (it sends `Sec-WebSocket-Protocol: realtime, rt_…`). As documented for the real service:
 * reusable until they expire, scoped to one model. Kept in the database (only their SHA-256), so a secret minted
 * by one platform process is accepted by every other process on the same database, and by this one after a
 * restart until it expires.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';

/** What a valid secret grants. */
export interface ClientSecretGrant { value: string; model: string; expiresAt: number }

const hashOf = (value: string) => createHash('sha256').update(value).digest('hex');

export class ClientSecretStore {
  /** `db`: the platform's database, once open. */
  constructor(private readonly db: Promise<Db>, private readonly now: () => number = () => Date.now()) {}

  /** A new secret for `model` (a model card id) valid for `ttlSeconds`. */
  async mint(model: string, ttlSeconds: number): Promise<ClientSecretGrant> {
    const db = await this.db;
    const now = this.now();
    const grant = { value: `rt_${randomBytes(24).toString('base64url')}`, model, expiresAt: now + ttlSeconds * 1000 };
    await db.query('delete from realtime_client_secrets where expires_at <= $1', [now]);
    await db.query('insert into realtime_client_secrets (secret_hash, model, expires_at) values ($1, $2, $3)', [hashOf(grant.value), model, grant.expiresAt]);
    return grant;
  }

  /** The grant of an unexpired secret, else undefined. */
  async verify(value: string): Promise<ClientSecretGrant | undefined> {
    const db = await this.db;
    const { rows } = await db.query<{ model: string; expires_at: number }>(
      'select model, expires_at from realtime_client_secrets where secret_hash = $1 and expires_at > $2', [hashOf(value), this.now()]);
    return rows[0] && { value, model: rows[0].model, expiresAt: Number(rows[0].expires_at) };
  }
}
