/**
 * Errors the relay answers by itself, in the platform's generic error shape
 * `{object:"error", message, type, param:null, code}`, so the client and the official SDK read
 * them like the platform's own.
 */
import type { GenericErrorBody } from '../client/types.js';

/** An error answer as a value; {@link toResponse} writes it. */
export class RelayError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: GenericErrorBody['type'],
    readonly code: string,
    readonly headers: Record<string, string> = {},
    /** Why it was refused, for metrics and the access log when the code does not tell (watch.ts). */
    readonly reason?: string,
  ) {
    super(message);
  }

  get body(): GenericErrorBody {
    return { object: 'error', message: this.message, type: this.type, param: null, code: this.code };
  }

  toResponse(): Response {
    return new Response(JSON.stringify(this.body), {
      status: this.status,
      headers: { 'content-type': 'application/json', ...this.headers },
    });
  }
}

// Constructors for each answer the relay gives by itself (status, type, code).

export const badRequest = (message: string, code = 'bad_request') => new RelayError(400, message, 'invalid_request_error', code);

export const unauthorized = (message = 'A valid session token is required in the Authorization header') =>
  new RelayError(401, message, 'authentication_error', 'unauthorized');

/** The session (or its subject) was revoked: 401 like any unusable token, counted as `revoked`. */
export const sessionRevoked = () => new RelayError(401, 'The session was revoked', 'authentication_error', 'unauthorized', {}, 'revoked');

export const forbidden = (message: string, code = 'forbidden') => new RelayError(403, message, 'invalid_request_error', code);

export const notFound = (message: string) => new RelayError(404, message, 'invalid_request_error', 'not_found');

/** No route: the same answer for every unknown path, whatever it contains. */
export const noRoute = () => notFound('No such route');

/** The answer for a conversation that does not exist or belongs to another session (indistinguishable on purpose). */
export const conversationNotFound = (id: string) => notFound(`Conversation '${id}' not found`);

export const methodNotAllowed = (allow: string[]) =>
  new RelayError(405, 'Method not allowed on this route', 'invalid_request_error', 'method_not_allowed', { allow: allow.join(', ') });

export const payloadTooLarge = (limit: number) =>
  new RelayError(413, `Request body is larger than the limit of ${limit} bytes`, 'invalid_request_error', 'request_too_large');

export const unsupportedMediaType = (expected: string) =>
  new RelayError(415, `Content-Type must be ${expected}`, 'invalid_request_error', 'unsupported_media_type');

/** The file's first bytes are not of a kind the route takes (magic numbers, not names or declared types). */
export const unsupportedFileType = (message: string) =>
  new RelayError(415, message, 'invalid_request_error', 'unsupported_file_type');

/** The request body arrived too slowly (no byte for a while, or below the minimum rate). */
export const requestTimeout = (message: string) => new RelayError(408, message, 'invalid_request_error', 'request_timeout');

export const rateLimited = (retryAfterSeconds: number, message = 'Rate limit exceeded') =>
  new RelayError(429, message, 'rate_limit_error', 'rate_limited', { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

export const tooManyStreams = (max: number) =>
  new RelayError(429, `Too many open streams for this session (limit ${max})`, 'rate_limit_error', 'too_many_streams', { 'retry-after': '1' });

/** The upstream failed; the message never carries upstream details (they could hold secrets). */
export const upstreamError = (status = 502, message = 'The platform could not answer; try again later', code = 'upstream_error') =>
  new RelayError(status, message, 'server_error', code);

/** The shared state store (Redis) cannot answer: refused rather than allowed unchecked. */
export const stateStoreUnavailable = () =>
  new RelayError(503, 'The relay cannot reach its state store; try again shortly', 'server_error', 'state_store_unavailable', { 'retry-after': '1' });

/** The client went away before its answer was complete (never read by it; the upstream call is cancelled). */
export const clientClosed = () => new RelayError(499, 'Request aborted by the client', 'invalid_request_error', 'client_closed_request');

export const internalError = () => new RelayError(500, 'Internal relay error', 'server_error', 'internal_error');
