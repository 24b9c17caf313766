/**
 * The operator endpoint, for the site's own servers (never for pages):
 *
 *   POST {base}/operator/revoke
 *   Authorization: Bearer <operatorSecret>
 *   Content-Type: application/json
 *   {"session_id": "ses_…"}   revokes one session (its tokens, resume tokens, tickets, open streams)
 *   {"subject": "user-42"}    revokes every token issued so far to that subject (as named by the
 *                             `authorize` hook); tokens minted afterwards work
 *
 * It exists only when `createRelay({ operatorSecret })` is set (≥ 32 bytes); otherwise the path is an
 * unknown path (404). The secret is compared in constant time (SHA-256 of both, compared whole); a
 * wrong or missing secret is 401. Failed attempts are rate-limited per address (guessing is slow, and
 * 429 once the bucket is empty); the right secret is never limited, so callers sharing the operator's
 * address (behind a proxy) cannot block a revocation. No CORS headers: browsers cannot call it.
 * The secret has no whitespace (it travels as one Bearer word).
 * Answers `200 {"object":"revocation","session_id"|"subject":…,"revoked_at":…}`.
 */
import * as v from 'valibot';
import { badRequest, unauthorized, unsupportedMediaType } from '../errors.js';
import { limitOperator } from '../proxy/limits.js';
import { checkDeclaredLength, mediaType, parseJsonObject, readCapped } from '../proxy/request-body.js';
import type { RequestState, RelayRuntime } from '../runtime.js';

/** Path of the endpoint below the base path. */
export const OPERATOR_REVOKE_PATH = '/operator/revoke';
/** Shortest accepted operator secret, in UTF-8 bytes. */
const MIN_OPERATOR_SECRET_BYTES = 32;
const BODY_LIMIT = 4 * 1024;
const Id = v.pipe(v.string(), v.minLength(1), v.maxLength(512));
const RevokeBody = v.union([
  v.strictObject({ session_id: Id }),
  v.strictObject({ subject: Id }),
]);

/** What the endpoint does once the caller is known to be the operator. */
export interface OperatorActions {
  revokeSession(sessionId: string): Promise<void>;
  /** Revokes the subject's tokens issued up to now; returns the revocation time (ms). */
  revokeSubject(subject: string): Promise<number>;
}

/** What is wrong with an operator secret (too short, or holding whitespace), or undefined when it is good. */
export function operatorSecretProblem(secret: string): string | undefined {
  if (new TextEncoder().encode(secret).length < MIN_OPERATOR_SECRET_BYTES) return `must be at least ${MIN_OPERATOR_SECRET_BYTES} bytes`;
  if (/\s/.test(secret)) return 'must not contain whitespace (it is sent as Authorization: Bearer <secret>)';
  return undefined;
}

/** Checks an operator secret given to `createRelay`; throws when too short or when it holds whitespace. */
export function checkOperatorSecret(secret: string): void {
  const problem = operatorSecretProblem(secret);
  if (problem) throw new Error(`relay: operatorSecret ${problem}`);
}

/** Answers `POST {base}/operator/revoke`; see the module comment. */
export async function handleOperatorRevoke(runtime: RelayRuntime, state: RequestState, secret: string, actions: OperatorActions): Promise<Response> {
  const header = state.request.headers.get('authorization') ?? '';
  const given = /^Bearer +(\S+)$/i.exec(header.trim())?.[1] ?? '';
  if (!(await sameSecret(given, secret))) {
    await limitOperator(runtime.store, state.address);
    throw unauthorized('The operator secret is required in the Authorization header');
  }

  const body = await readBody(state.request);
  const answer: Record<string, unknown> = { object: 'revocation' };
  if ('session_id' in body) {
    await actions.revokeSession(body.session_id);
    answer.session_id = body.session_id;
    answer.revoked_at = new Date(runtime.now()).toISOString();
  } else {
    const at = await actions.revokeSubject(body.subject);
    answer.subject = body.subject;
    answer.revoked_at = new Date(at).toISOString();
  }
  return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
}

async function readBody(request: Request): Promise<v.InferOutput<typeof RevokeBody>> {
  if (mediaType(request) !== 'application/json') throw unsupportedMediaType('application/json');
  checkDeclaredLength(request, BODY_LIMIT);
  const parsed = v.safeParse(RevokeBody, parseJsonObject(await readCapped(request.body, BODY_LIMIT)));
  if (!parsed.success) throw badRequest('The body must be {"session_id": "…"} or {"subject": "…"}');
  return parsed.output;
}

/** Constant-time comparison: both sides hashed to 32 bytes, every byte compared. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([given, expected].map(async (s) => new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(s)))));
  let diff = 0;
  for (let i = 0; i < a!.length; i++) diff |= a![i]! ^ b![i]!;
  return diff === 0 && given.length > 0;
}
