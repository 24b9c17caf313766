/**
 * `POST /v1/client/sessions` of the local platform (reference §5.4): a backend, with its API key, asks for a
 * short-lived `rt_` secret that a browser then uses to open the realtime transcription WebSocket.
 *
 * - Body `{purpose: "realtime", model, ttl_seconds?}`; bad input → 422 FastAPI `detail`. `ttl_seconds` between
 *   {@link MIN_TTL_SECONDS} and {@link MAX_TTL_SECONDS}, default {@link DEFAULT_TTL_SECONDS}.
 * - `model` must be a realtime transcription model (`capabilities.audio_transcription_realtime`), by id or alias;
 *   anything else → 400 `invalid_model`. The secret is scoped to that model (its card: aliases of it are the
 *   same model) and reusable until it expires; see realtime/client-secrets.ts (kept in the database).
 * - 201 `{object: "client.session", purpose: "realtime", expires_at, client_secret: {value: "rt_…", expires_at}}`.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { ClientSessionResponse } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { invalidModel } from '../http/errors.js';
import { readJson } from '../http/validation.js';
import type { ClientSecretStore } from './client-secrets.js';
import { REALTIME_MODEL_EXPECTATION } from './endpoint.js';

export const DEFAULT_TTL_SECONDS = 900;
export const MIN_TTL_SECONDS = 10;
export const MAX_TTL_SECONDS = 3600;

const ClientSessionSchema = z.looseObject({
  purpose: z.literal('realtime'),
  model: z.string().min(1),
  ttl_seconds: z.number().int().min(MIN_TTL_SECONDS).max(MAX_TTL_SECONDS).nullable().optional(),
});

/** ISO-8601 with microseconds and `Z`, like every timestamp of the platform. */
const isoAt = (ms: number) => `${new Date(ms).toISOString().slice(0, 23)}000Z`;

export function clientSessionRoutes(ctx: PlatformContext, secrets: ClientSecretStore): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  app.post('/', async (c) => {
    const body = await readJson(c, ClientSessionSchema, ctx.limits.maxJsonBytes);
    const resolved = ctx.transcription.resolve(body.model);
    if (!resolved?.card.capabilities.audio_transcription_realtime) {
      throw invalidModel(body.model, REALTIME_MODEL_EXPECTATION);
    }
    const grant = await secrets.mint(resolved.card.id, body.ttl_seconds ?? DEFAULT_TTL_SECONDS);
    const expires_at = isoAt(grant.expiresAt);
    return c.json({ object: 'client.session', purpose: 'realtime', expires_at, client_secret: { value: grant.value, expires_at } } satisfies ClientSessionResponse, 201);
  });

  return app;
}
