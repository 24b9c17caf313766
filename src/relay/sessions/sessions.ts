/**
 * `POST {base}/session`: mints a session token for a page (or the site's backend).
 *   `{}` or empty body → a new session;
 *   `{resume_token}` → the same session id again (after a reload), with the session's policy;
 *   `{token}` → refresh of a still-valid token (same session).
 * Each call checks the Origin, the per-address mint limit and the `authorize` hook, and answers a
 * `SessionResponse` with a fresh token and resume token.
 */
import * as v from 'valibot';
import type { SessionResponse } from '../../client/contracts.js';
import { randomId } from '../bytes.js';
import { rateGuardedBody } from '../proxy/body-rate.js';
import { badRequest, forbidden, sessionRevoked, unauthorized, unsupportedMediaType } from '../errors.js';
import { limitSessionMint } from '../proxy/limits.js';
import { completePolicy, type RelayPolicy } from './policy.js';
import { checkDeclaredLength, mediaType, parseJsonObject, readCapped } from '../proxy/request-body.js';
import type { RelayRuntime, RequestState, SessionRequestKind } from '../runtime.js';
import type { SessionClaims } from './session-tokens.js';

const SESSION_BODY_LIMIT = 16 * 1024;

const SessionBody = v.object({
  resume_token: v.optional(v.pipe(v.string(), v.minLength(1))),
  token: v.optional(v.pipe(v.string(), v.minLength(1))),
});

/** Answers `POST {base}/session`. */
export async function handleSessionRequest(runtime: RelayRuntime, state: RequestState): Promise<Response> {
  const { request, origin } = state;
  if (origin && !state.originAllowed) throw forbidden('This origin may not open sessions', 'origin_not_allowed');
  // Without an Origin the caller is not a browser page: only an authorize hook can vouch for it.
  if (!origin && !runtime.authorize) throw forbidden('Sessions are opened from pages of allowed origins', 'origin_required');
  await limitSessionMint(runtime.store, state.address, runtime.addressLimits);

  const body = await readSessionBody(request, runtime);
  const kind: SessionRequestKind = body.token ? 'refresh' : body.resume_token ? 'resume' : 'new';
  let previous: SessionClaims | null = null;
  if (kind === 'refresh') {
    previous = await runtime.tokens.verifyAccess(body.token!);
    if (!previous) throw unauthorized('The session token is invalid or expired; open a new session');
  } else if (kind === 'resume') {
    previous = await runtime.tokens.verifyResume(body.resume_token!);
    if (!previous) throw unauthorized('The resume token is invalid or expired; open a new session');
  }
  if (previous) {
    if (await runtime.store.isRevoked([previous.sid, previous.jti], { subject: previous.sub, issuedAt: previous.iat })) throw sessionRevoked();
    if (previous.origin && previous.origin !== origin) throw forbidden('This session belongs to another origin', 'origin_mismatch');
  }

  const sessionId = previous?.sid ?? `ses_${randomId(16)}`;
  const previousPolicy = previous ? runtime.tokens.policyOf(previous) : undefined;
  const decision = runtime.authorize
    ? await runtime.authorize(request, {
      kind, origin, sessionId, clientIp: state.clientIp, body: body.raw,
      previous: previous ? { subject: previous.sub, policy: previousPolicy! } : undefined,
    })
    : true;
  if (decision === false) throw forbidden('The session was refused', 'session_refused');
  const granted = typeof decision === 'object' && decision ? decision : {};
  const base: RelayPolicy = previousPolicy ?? runtime.defaultPolicy;
  const policy = completePolicy(granted.policy, base);

  const mint = {
    sessionId,
    subject: granted.subject ?? previous?.sub ?? `session:${sessionId}`,
    origin: previous ? previous.origin : origin,
    policy,
  };
  await waitPastSubjectRevocation(runtime, mint.subject);
  const access = await runtime.tokens.mintAccess(mint);
  const resume = await runtime.tokens.mintResume(mint);
  const answer: SessionResponse = {
    token: access.token,
    expires_at: new Date(access.claims.exp * 1000).toISOString(),
    session_id: sessionId,
    resume_token: resume.token,
    ...(runtime.feedback && policy.scopes.includes('conversations') ? { features: ['feedback'] } : {}),
  };
  state.session = kind;
  return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
}

/**
 * Token times are whole seconds and a token of the second its subject was revoked in counts as
 * revoked, so a user coming back within that second gets a token of the next second (a wait < 1 s).
 */
async function waitPastSubjectRevocation(runtime: RelayRuntime, subject: string): Promise<void> {
  const t = runtime.now();
  if (!(await runtime.store.isRevoked([], { subject, issuedAt: Math.floor(t / 1000) }))) return;
  await new Promise((resolve) => setTimeout(resolve, 1000 - (t % 1000) + 5));
}

/** The session body: empty, or a JSON object with at most one of `token` / `resume_token`. */
async function readSessionBody(request: Request, runtime: RelayRuntime): Promise<{ token?: string; resume_token?: string; raw: Record<string, unknown> }> {
  const type = mediaType(request);
  if (type !== null && type !== 'application/json') throw unsupportedMediaType('application/json');
  checkDeclaredLength(request, SESSION_BODY_LIMIT);
  const bytes = await readCapped(request.body && rateGuardedBody(request.body, runtime.bodyRate), SESSION_BODY_LIMIT);
  if (!bytes.length) return { raw: {} };
  if (type === null) throw unsupportedMediaType('application/json');
  const raw = parseJsonObject(bytes);
  const parsed = v.safeParse(SessionBody, raw);
  if (!parsed.success) throw badRequest('Session body fields resume_token and token must be non-empty strings');
  if (parsed.output.token && parsed.output.resume_token) throw badRequest('Send either token or resume_token, not both');
  return { ...parsed.output, raw };
}
