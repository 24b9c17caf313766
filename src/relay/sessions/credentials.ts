/**
 * Reading the caller's session token. It is accepted from exactly one place, the
 * `Authorization: Bearer` header; a token (or key) anywhere else, alone or in addition, is refused
 * with 401 so no second credential path can bypass a check.
 */
import { forbidden, sessionRevoked, unauthorized } from '../errors.js';
import type { RelayRuntime, RequestState } from '../runtime.js';
import { looksLikeToken, type SessionClaims } from './session-tokens.js';

/** Header names that carry keys in other APIs; never accepted by the relay. */
const CREDENTIAL_HEADERS = ['x-api-key', 'api-key', 'x-auth-token', 'x-access-token'];
/** Query parameter names that carry tokens; never accepted. */
const CREDENTIAL_QUERY = new Set(['access_token', 'token', 'api_key', 'apikey', 'key', 'auth', 'authorization']);

/** Refuses credentials sent anywhere but the Authorization header. */
function refuseOtherCredentialPlaces(request: Request, url: URL): void {
  for (const name of CREDENTIAL_HEADERS) {
    if (request.headers.has(name)) throw unauthorized('Send the session token only as Authorization: Bearer');
  }
  for (const name of url.searchParams.keys()) {
    if (CREDENTIAL_QUERY.has(name.toLowerCase())) throw unauthorized('Tokens are never accepted in the URL; send Authorization: Bearer');
  }
  const cookie = request.headers.get('cookie');
  if (cookie) {
    for (const part of cookie.split(';')) {
      const value = part.slice(part.indexOf('=') + 1).trim();
      let decoded = value;
      try {
        decoded = decodeURIComponent(value);
      } catch { /* keep raw */ }
      if (looksLikeToken(decoded.replace(/^Bearer\s+/i, ''))) throw unauthorized('Tokens are never accepted in cookies; send Authorization: Bearer');
    }
  }
}

/**
 * Verifies the bearer token of an API request: signature, type, issuer, audience, time (with skew),
 * revocation, and the origin it was minted for. Returns its claims; throws 401/403.
 */
export async function authenticate(runtime: RelayRuntime, state: RequestState): Promise<SessionClaims> {
  const { request } = state;
  refuseOtherCredentialPlaces(request, state.url);
  const header = request.headers.get('authorization');
  const token = header ? /^Bearer +([A-Za-z0-9_.-]+)$/i.exec(header.trim())?.[1] : undefined;
  if (!token) throw unauthorized();
  const claims = await runtime.tokens.verifyAccess(token);
  if (!claims) throw unauthorized('The session token is invalid or expired');
  if (await runtime.store.isRevoked([claims.sid, claims.jti], { subject: claims.sub, issuedAt: claims.iat })) throw sessionRevoked();
  // A token minted for one page may not be used by a page of another origin.
  if (claims.origin && state.origin && state.origin !== claims.origin) throw forbidden('This session belongs to another origin', 'origin_mismatch');
  return claims;
}
