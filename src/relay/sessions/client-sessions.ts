/**
 * `POST {base}/v1/client/sessions`, answered by the relay itself (no upstream call): the platform's
 * own way for a page to get a WebSocket secret, in the platform's shapes (201 `client.session`,
 * 422 `{detail}`), but the secret is a relay ticket: single use, ≤ 60 s, bound to the caller's
 * session and one model. The page then connects to the relay's realtime route (realtime.ts).
 */
import type { ClientSessionResponse, HTTPValidationError, ValidationIssue } from '../../client/types.js';
import { forbidden } from '../errors.js';
import { isAllowed } from './policy.js';
import type { RelayRuntime, RequestState } from '../runtime.js';
import type { SessionClaims } from './session-tokens.js';

/** Longest life of a ticket, whatever `ttl_seconds` asks. */
export const MAX_TICKET_TTL_SECONDS = 60;

/** Answers a validated `client_sessions.create` request (origin, token, scope and limits already checked). */
export async function createClientSession(runtime: RelayRuntime, state: RequestState, body: Record<string, unknown>, claims: SessionClaims): Promise<Response> {
  const issues = validate(body);
  if (issues.length) {
    const answer: HTTPValidationError = { detail: issues };
    return new Response(JSON.stringify(answer), { status: 422, headers: { 'content-type': 'application/json' } });
  }
  const model = body.model as string;
  if (!isAllowed(claims.models, model)) throw forbidden(`This session may not use model '${model}'`, 'model_not_allowed');
  const ttlSeconds = Math.min(MAX_TICKET_TTL_SECONDS, (body.ttl_seconds as number | null | undefined) ?? MAX_TICKET_TTL_SECONDS);
  const { ticket, claims: ticketClaims } = await runtime.tokens.mintTicket({
    sessionId: claims.sid,
    subject: claims.sub,
    model,
    // Bound to the page that asked (or the session's page when a backend asks for it).
    origin: state.origin ?? claims.origin,
    concurrentStreams: claims.limits.concurrentStreams,
    ttlSeconds,
  });
  const expiresAt = new Date(ticketClaims.exp * 1000).toISOString();
  const answer: ClientSessionResponse = {
    object: 'client.session', purpose: 'realtime', expires_at: expiresAt, client_secret: { value: ticket, expires_at: expiresAt },
  };
  return new Response(JSON.stringify(answer), { status: 201, headers: { 'content-type': 'application/json' } });
}

/** The body's issues, as FastAPI/pydantic would word them (`{purpose:"realtime", model, ttl_seconds?}`). */
function validate(body: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const missing = (field: string) => issues.push({ type: 'missing', loc: ['body', field], msg: 'Field required', input: body });
  if (!('purpose' in body)) missing('purpose');
  else if (body.purpose !== 'realtime') {
    issues.push({ type: 'literal_error', loc: ['body', 'purpose'], msg: "Input should be 'realtime'", input: body.purpose, ctx: { expected: "'realtime'" } });
  }
  if (!('model' in body)) missing('model');
  else if (typeof body.model !== 'string') issues.push({ type: 'string_type', loc: ['body', 'model'], msg: 'Input should be a valid string', input: body.model });
  else if (!body.model) issues.push({ type: 'string_too_short', loc: ['body', 'model'], msg: 'String should have at least 1 character', input: body.model, ctx: { min_length: 1 } });
  const ttl = body.ttl_seconds;
  if (ttl !== undefined && ttl !== null) {
    if (typeof ttl !== 'number' || !Number.isInteger(ttl)) issues.push({ type: 'int_type', loc: ['body', 'ttl_seconds'], msg: 'Input should be a valid integer', input: ttl });
    else if (ttl < 1) issues.push({ type: 'greater_than_equal', loc: ['body', 'ttl_seconds'], msg: 'Input should be greater than or equal to 1', input: ttl, ctx: { ge: 1 } });
  }
  return issues;
}
