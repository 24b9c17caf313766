/**
 * Origins and CORS. Exact allowed origins (and, by default, the relay's own origin) get an
 * `Access-Control-Allow-Origin` echo on every answer. Preflights are answered here and never forwarded.
 * No credentials mode: the relay uses bearer tokens, not cookies.
 *
 * A refused origin is told so, readably. A page whose origin is not on the list would otherwise see only
 * a network `TypeError` ("could not be reached"), and the site owner would never learn that the fix is
 * one line of configuration. So, for a well-formed origin that is not allowed:
 * - its preflight is answered like any other (204, the path's methods and the request headers): it
 *   only lets the browser *send* the request, which any non-browser client can send anyway;
 * - the request itself is refused before anything else happens (no session minted, nothing forwarded,
 *   no upstream call) with 403 `origin_not_allowed`, and that answer, and only that one, carries the
 *   origin echo, so the page can read it and report it.
 * Why that is safe: CORS decides what a page may *read*, and what this page can read is a fixed refusal
 * that says what it already knows (its own origin is not on the list). It never gets a token, so it
 * can reach nothing behind the relay; no headers are exposed and no credentials are allowed. `null`
 * (sandboxed frames, `data:` pages) and non-canonical origins get no echo at all: they share one value,
 * and nothing legitimate sends them.
 */
import { parseIp } from './client-address.js';

/** Which page origins may use the relay. */
export interface OriginPolicy {
  /** Exact origins (`https://shop.example`), compared after normalisation. */
  allowedOrigins: string[];
  /** Also allow the relay's own origin (same-origin pages, e.g. `npm start`). Default true. */
  allowSameOrigin: boolean;
  /**
   * The relay's public origin (`https://chat.shop.example`). When set, a page is same-origin only if
   * its Origin equals it, whatever the request's Host says. When not set, same-origin is honoured only
   * for a Host that is `localhost` or an IP address: any other Host could be a DNS-rebound name.
   */
  publicOrigin?: string;
}

/** Request headers a page may send (answered in preflights). */
export const ALLOWED_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'idempotency-key', 'x-request-id', 'last-event-id'];
/** Response headers a page may read. */
export const EXPOSED_RESPONSE_HEADERS = ['retry-after', 'server-timing', 'x-request-id', 'parley-stream-id'];
const PREFLIGHT_MAX_AGE = '600';

/** `scheme://host[:port]` in canonical form, or null when `value` is not a plain origin. */
export function normaliseOrigin(value: string): string | null {
  if (!/^https?:\/\/[^/?#\s]+$/i.test(value)) return null;
  try {
    const url = new URL(value);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

/** Builds the origin check. */
export function createOriginCheck(policy: OriginPolicy) {
  const allowed = new Set<string>();
  for (const o of policy.allowedOrigins) {
    const n = normaliseOrigin(o);
    if (!n) throw new Error(`relay: '${o}' is not an origin (scheme://host[:port])`);
    allowed.add(n);
  }
  const publicOrigin = policy.publicOrigin === undefined ? undefined : normaliseOrigin(policy.publicOrigin);
  if (publicOrigin === null) throw new Error(`relay: publicOrigin '${policy.publicOrigin}' is not an origin (scheme://host[:port])`);
  /** Whether a request's `Origin` header value is allowed for `requestUrl`. */
  return function isAllowedOrigin(origin: string, requestUrl: URL): boolean {
    // Exact hit on the list (entries are canonical): no parsing on the common path.
    if (allowed.has(origin)) return true;
    // Browsers send origins in canonical form; anything else (`null`, a path, odd case) is refused.
    if (!policy.allowSameOrigin || !isCanonicalOrigin(origin)) return false;
    if (publicOrigin) return origin === publicOrigin;
    return requestUrl.origin === origin && hostCannotBeRebound(requestUrl.hostname);
  };
}

/**
 * Whether a Host names this machine or an address outright: `localhost` (browsers resolve it to
 * loopback themselves) or an IP literal. A DNS-rebinding page has a domain name as its origin and
 * Host, so it never passes; an IP address cannot be rebound.
 */
function hostCannotBeRebound(hostname: string): boolean {
  return hostname === 'localhost' || parseIp(hostname) !== null;
}

/**
 * Adds CORS answer headers for an allowed origin (and `Vary: Origin` always). `originRefusal` marks the
 * 403 `origin_not_allowed` answer to a refused origin: it gets the bare echo, so the page can read why
 * (see the module comment).
 */
export function applyCorsHeaders(headers: Headers, origin: string | null, allowed: boolean, originRefusal = false): void {
  appendVary(headers, 'Origin');
  if (!origin) return;
  if (allowed) {
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-expose-headers', EXPOSED_RESPONSE_HEADERS.join(', '));
  } else if (originRefusal && isCanonicalOrigin(origin)) {
    headers.set('access-control-allow-origin', origin);
  }
}

/** The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) on a routable path. */
export function preflightResponse(origin: string | null, allowed: boolean, methods: string[]): Response {
  const headers = new Headers();
  appendVary(headers, 'Origin');
  appendVary(headers, 'Access-Control-Request-Method');
  appendVary(headers, 'Access-Control-Request-Headers');
  if (!origin) {
    // Not a CORS preflight: say what the path allows.
    headers.set('allow', [...methods, 'OPTIONS'].join(', '));
    return new Response(null, { status: 204, headers });
  }
  // A refused but well-formed origin may send the request, to read its refusal (see the module comment).
  if (!allowed && !isCanonicalOrigin(origin)) return new Response(null, { status: 403, headers });
  headers.set('access-control-allow-origin', origin);
  headers.set('access-control-allow-methods', methods.join(', '));
  headers.set('access-control-allow-headers', ALLOWED_REQUEST_HEADERS.join(', '));
  headers.set('access-control-max-age', PREFLIGHT_MAX_AGE);
  return new Response(null, { status: 204, headers });
}

/** Whether a value is an origin exactly as a browser sends it (not `null`, no path, canonical case). */
function isCanonicalOrigin(origin: string): boolean {
  return normaliseOrigin(origin) === origin;
}

function appendVary(headers: Headers, name: string): void {
  const current = headers.get('vary');
  if (!current) headers.set('vary', name);
  else if (!current.split(',').some((v) => v.trim().toLowerCase() === name.toLowerCase())) headers.set('vary', `${current}, ${name}`);
}
