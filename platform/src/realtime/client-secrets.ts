/**
 * Short-lived `rt_` client secrets (`POST /v1/client/sessions`) that let a browser open the realtime WebSocket
 * without the API key (it sends `Sec-WebSocket-Protocol: realtime, rt_…`). As documented for the real service:
 * reusable until they expire, scoped to one model. Kept in this process's memory only: they live minutes, and
 * a restarted platform simply refuses the old ones (the browser asks its backend for a new one).
 */
import { randomBytes } from 'node:crypto';

/** What a valid secret grants. */
export interface ClientSecretGrant { value: string; model: string; expiresAt: number }

export class ClientSecretStore {
  private readonly secrets = new Map<string, ClientSecretGrant>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** A new secret for `model` (a model card id) valid for `ttlSeconds`. */
  mint(model: string, ttlSeconds: number): ClientSecretGrant {
    this.prune();
    const grant = { value: `rt_${randomBytes(24).toString('base64url')}`, model, expiresAt: this.now() + ttlSeconds * 1000 };
    this.secrets.set(grant.value, grant);
    return grant;
  }

  /** The grant of an unexpired secret, else undefined. */
  verify(value: string): ClientSecretGrant | undefined {
    const grant = this.secrets.get(value);
    if (!grant) return undefined;
    if (grant.expiresAt <= this.now()) {
      this.secrets.delete(value);
      return undefined;
    }
    return grant;
  }

  private prune(): void {
    const now = this.now();
    for (const [value, grant] of this.secrets) if (grant.expiresAt <= now) this.secrets.delete(value);
  }
}
