import type { GenericErrorBody, ValidationIssue } from '../client/types.js';

/**
 * An HTTP answer that is an error, carried as a value until the app's error handler writes it.
 * Bodies are the platform's real shapes: 422 `{detail:[…]}` or `{object:"error", …}`.
 */
export class PlatformHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: GenericErrorBody | { detail: ValidationIssue[] },
    readonly headers: Record<string, string> = {},
  ) {
    super('message' in body ? body.message : body.detail.map((d) => d.msg).join('; '));
  }
}

export function genericError(
  status: number,
  message: string,
  type: GenericErrorBody['type'] = 'invalid_request_error',
  code: string | null = null,
  param: string | null = null,
): PlatformHttpError {
  return new PlatformHttpError(status, { object: 'error', message, type, param, code });
}

export const notFound = (message: string) => genericError(404, message, 'invalid_request_error', 'not_found');
export const badRequest = (message: string, param: string | null = null) =>
  genericError(400, message, 'invalid_request_error', 'bad_request', param);
export const unauthorized = (message = 'Unauthorized: a valid API key is required in the Authorization header') =>
  genericError(401, message, 'authentication_error', 'unauthorized');
export const forbidden = (message: string) => genericError(403, message, 'invalid_request_error', 'forbidden');
export const payloadTooLarge = (limit: number) =>
  genericError(413, `Request body is larger than the limit of ${limit} bytes`, 'invalid_request_error', 'request_too_large');

/** 503 for an engine that cannot run on this install (e.g. an optional dependency is missing). */
export const engineUnavailable = (message: string) => genericError(503, message, 'server_error', 'engine_unavailable');
/** 503 with `Retry-After: 1` for an engine with too many requests waiting. */
export const engineBusy = (message: string) =>
  new PlatformHttpError(503, genericError(503, message, 'server_error', 'engine_busy').body, { 'retry-after': '1' });

/** 422 with a FastAPI-style detail list. */
export function validationError(detail: ValidationIssue[]): PlatformHttpError {
  return new PlatformHttpError(422, { detail });
}

/** 422 for one field, e.g. `invalidField(['body','from_entry_id'], 'Entry not found in conversation', 'value_error')`. */
export function invalidField(loc: Array<string | number>, msg: string, type = 'value_error', input?: unknown): PlatformHttpError {
  const issue: ValidationIssue = { loc, msg, type };
  if (input !== undefined) issue.input = input;
  return validationError([issue]);
}
