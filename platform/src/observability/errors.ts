/**
 * Errors of the observability API (`/v1/observability/*`). Unlike the rest of the platform, these
 * endpoints answer 400/404/408/409/422 with `{detail: {message, error_code}}` (ObservabilityError in the
 * spec and SDK), so the SDK raises `ObservabilityError` with a readable `detail.message`. The UUID ids of its
 * paths and bodies are checked here too, so a malformed one answers in that shape.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { UUID_RE } from '../http/ids.js';
import { PlatformHttpError, boundedMessage } from '../http/errors.js';

/** Values of `error_code` this area answers with (a subset of the SDK's open enum ObservabilityErrorCode). */
export type ObservabilityErrorCode =
  | 'VALIDATION_ERROR'
  | 'DATASET_NOT_FOUND'
  | 'DATASET_TASK_NOT_FOUND'
  | 'DATASET_RECORD_NOT_FOUND'
  | 'DATASET_RECORD_FORMAT_ERROR'
  | 'JUDGE_NOT_FOUND'
  | 'JUDGE_NAME_ALREADY_EXISTS'
  | 'JUDGE_CONVERSATION_FORMAT_ERROR'
  | 'JUDGE_MISTRAL_API_ERROR'
  | 'FIELDS_NOT_FOUND'
  | 'CAMPAIGN_NOT_FOUND'
  | 'CAMPAIGN_NO_MATCHING_EVENTS';

export interface ObservabilityErrorBody { detail: { message: string; error_code: ObservabilityErrorCode | null } }

/** An observability error answer carried as a value until the area's error handler writes it. */
export class ObservabilityHttpError extends Error {
  readonly body: ObservabilityErrorBody;
  constructor(readonly status: number, message: string, code: ObservabilityErrorCode | null) {
    super(message);
    this.body = { detail: { message: boundedMessage(message), error_code: code } };
  }
}

/** 404 for an id that names nothing the caller can see (`code` null for things without a code of their own, e.g. conversations). */
export const missing = (code: ObservabilityErrorCode | null, message: string) => new ObservabilityHttpError(404, message, code);

/** 422 `VALIDATION_ERROR` naming the field (`body.name: …`). */
export const invalid = (loc: Array<string | number>, message: string) =>
  new ObservabilityHttpError(422, `${loc.join('.')}: ${message}`, 'VALIDATION_ERROR');

/** A body field the API declares as a UUID, lower-cased; malformed → 422 `VALIDATION_ERROR`. */
export const uuidField = z.string().regex(UUID_RE, 'Input should be a valid UUID').transform((s) => s.toLowerCase());

/** A path id the API declares as a UUID, lower-cased; malformed → 422 `VALIDATION_ERROR`. */
export function pathUuid(c: Context, name: string): string {
  const raw = c.req.param(name) ?? '';
  if (!UUID_RE.test(raw)) throw invalid(['path', name], `Input should be a valid UUID, got '${raw.slice(0, 80)}'`);
  return raw.toLowerCase();
}

/**
 * Error handler of the area's sub-app: writes observability errors, turns the shared 422 validation
 * answers (`{detail:[…]}` from readJson/validate) into the observability shape, and leaves every other
 * error (413, unexpected failures) to the platform's handler.
 */
export function observabilityErrorResponse(err: Error, c: Context): Response {
  if (err instanceof ObservabilityHttpError) return c.json(err.body, err.status as 400);
  if (err instanceof PlatformHttpError && err.status === 422 && 'detail' in err.body) {
    const message = err.body.detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ');
    const body: ObservabilityErrorBody = { detail: { message: boundedMessage(message), error_code: 'VALIDATION_ERROR' } };
    return c.json(body, 422);
  }
  throw err;
}
