/**
 * Session tokens: short-lived HS256 JWTs the page sends as `Authorization: Bearer`, long-lived
 * resume tokens (another `aud` and `typ`) that only `POST {base}/session` accepts, and realtime
 * tickets (`rt_` + a JWT of a third `aud`/`typ`, ≤ 60 s, one model) that only the WebSocket upgrade
 * accepts. Signing uses the first key; verification accepts any configured key by `kid` (rotation with overlap).
 * Verification pins the algorithm, the token type, issuer and audience, and allows a small clock skew.
 * Verified access tokens are remembered by their exact string (a bounded LRU) until they expire, so a
 * token's signature is checked once, not on every request; its times are checked again on every use,
 * and revocation is the caller's check, made every time.
 */
import { SignJWT, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import * as v from 'valibot';
import { randomId } from '../bytes.js';
import { ALL_SCOPES, type RelayPolicy, type RelayScope } from './policy.js';

/** A signing secret with its key id; the first of a list signs, all verify. */
export interface RelaySigningKey {
  kid: string;
  /** At least 32 bytes (UTF-8). */
  secret: string;
}

/** What a session token says (JWT claims). */
export interface SessionClaims {
  iss: string;
  aud: string;
  /** Who the session is for (from the `authorize` hook, or `session:<sid>`). */
  sub: string;
  /** Session id: stable across refreshes and resumes. */
  sid: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  scopes: RelayScope[];
  agents: string[];
  models: string[];
  /** Origin the session was minted for, or null (minted by a backend). */
  origin: string | null;
  limits: RelayPolicy['limits'];
}

/** Claims of a resume token: the same session and policy, without being usable on API routes. */
export type ResumeClaims = SessionClaims;

/** Options of {@link createSessionTokens}. */
export interface SessionTokenOptions {
  keys: RelaySigningKey[];
  issuer: string;
  audience: string;
  ttlSeconds: number;
  resumeTtlSeconds: number;
  clockSkewSeconds: number;
  now: () => number;
  /** Verified access tokens remembered (default 10 000; 0 turns the cache off). */
  cacheSize?: number;
}

/** What a minted token is for. */
export interface MintInput {
  sessionId: string;
  subject: string;
  origin: string | null;
  policy: RelayPolicy;
}

/** A signed token and its claims. */
export interface MintedToken {
  token: string;
  claims: SessionClaims;
}

/** What a realtime ticket says: the session it was minted for, the one model it opens, and until when. */
export interface TicketClaims {
  sid: string;
  /** Who the session is for (the session token's `sub`): subject revocation covers its tickets. */
  sub: string;
  /** Seconds since the epoch. */
  iat: number;
  /** Unique id: a ticket is used once (see `RelayStateStore.useOnce`). */
  jti: string;
  model: string;
  /** Origin of the page that minted it, or null (minted by a backend). */
  origin: string | null;
  /** Seconds since the epoch. */
  exp: number;
  /** The session's concurrent-stream cap, enforced when the socket opens. */
  concurrentStreams: number;
}

/** What a minted ticket is for. */
export interface TicketInput {
  sessionId: string;
  /** The session's subject (default `session:<sessionId>`). */
  subject?: string;
  model: string;
  origin: string | null;
  concurrentStreams: number;
  ttlSeconds: number;
}

/** Prefix of realtime tickets, as the platform's own client secrets have. */
export const TICKET_PREFIX = 'rt_';

/** Signs and verifies session and resume tokens, and realtime tickets. */
export interface SessionTokens {
  mintAccess(input: MintInput): Promise<MintedToken>;
  mintResume(input: MintInput): Promise<MintedToken>;
  /** Verified claims of an access token, or null for anything invalid (expired, tampered, wrong kind…). */
  verifyAccess(token: string): Promise<SessionClaims | null>;
  /** Verified claims of a resume token, or null. */
  verifyResume(token: string): Promise<ResumeClaims | null>;
  /** The policy carried by verified claims. */
  policyOf(claims: SessionClaims): RelayPolicy;
  /** A realtime ticket (`rt_…`) and its claims. */
  mintTicket(input: TicketInput): Promise<{ ticket: string; claims: TicketClaims }>;
  /** Verified claims of a ticket (signature, type, audience, time), or null. Single use is the caller's check. */
  verifyTicket(ticket: string): Promise<TicketClaims | null>;
}

const ACCESS_TYPE = 'parley-session+jwt';
const RESUME_TYPE = 'parley-resume+jwt';
const TICKET_TYPE = 'parley-realtime+jwt';
const ALGORITHM = 'HS256';
const MIN_SECRET_BYTES = 32;

const Id = v.pipe(v.string(), v.minLength(1));
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Positive = v.pipe(v.number(), v.gtValue(0));

const ClaimsSchema = v.object({
  sub: Id,
  sid: Id,
  jti: Id,
  iat: v.number(),
  nbf: v.number(),
  exp: v.number(),
  scopes: v.array(v.picklist(ALL_SCOPES as RelayScope[])),
  agents: v.array(v.string()),
  models: v.array(v.string()),
  origin: v.nullable(v.string()),
  limits: v.object({ requestsPerMinute: Positive, burst: Positive, concurrentStreams: Count }),
});

const TicketSchema = v.object({
  sid: Id,
  sub: Id,
  iat: v.number(),
  jti: Id,
  exp: v.number(),
  model: Id,
  origin: v.nullable(v.string()),
  streams: Count,
});

/** Creates the token signer/verifier; throws when no key or a too-short secret is given. */
export function createSessionTokens(options: SessionTokenOptions): SessionTokens {
  if (!options.keys.length) throw new Error('relay: at least one signing key is required');
  const encoder = new TextEncoder();
  // Keys are imported once here: jose would import a raw Uint8Array secret again on every sign/verify.
  const secrets = new Map<string, Promise<CryptoKey>>();
  for (const key of options.keys) {
    const bytes = encoder.encode(key.secret);
    if (bytes.length < MIN_SECRET_BYTES) throw new Error(`relay: signing key '${key.kid}' must be at least ${MIN_SECRET_BYTES} bytes`);
    if (!key.kid) throw new Error('relay: every signing key needs a kid');
    secrets.set(key.kid, crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));
  }
  const signing = options.keys[0]!;
  const resumeAudience = `${options.audience}/resume`;
  const ticketAudience = `${options.audience}/realtime`;
  const seconds = () => Math.floor(options.now() / 1000);

  async function mint(input: MintInput, typ: string, audience: string, ttl: number): Promise<MintedToken> {
    const iat = seconds();
    const claims: SessionClaims = {
      iss: options.issuer,
      aud: audience,
      sub: input.subject,
      sid: input.sessionId,
      iat,
      nbf: iat,
      exp: iat + ttl,
      jti: randomId(16),
      scopes: input.policy.scopes,
      agents: input.policy.agents,
      models: input.policy.models,
      origin: input.origin,
      limits: input.policy.limits,
    };
    const token = await new SignJWT(claims as unknown as JWTPayload)
      .setProtectedHeader({ alg: ALGORITHM, typ, kid: signing.kid })
      .sign(await secrets.get(signing.kid)!);
    return { token, claims };
  }

  const verified = createTokenCache(options.cacheSize ?? 10_000);
  /** Whether claims are within their time window now (the same test, with the same skew, jose makes). */
  const timely = (claims: SessionClaims) => {
    const t = seconds();
    return claims.exp > t - options.clockSkewSeconds && claims.nbf <= t + options.clockSkewSeconds;
  };

  /** A verified access token's claims: from the cache when this exact string was verified before and is still timely. */
  async function verifyAccess(token: string): Promise<SessionClaims | null> {
    const cached = verified.get(token);
    if (cached) {
      if (timely(cached)) return cached;
      verified.delete(token);
      return null;
    }
    const claims = await verify(token, ACCESS_TYPE, options.audience);
    if (!claims) return null;
    freezeClaims(claims);
    verified.set(token, claims);
    return claims;
  }

  async function verify(token: string, typ: string, audience: string): Promise<SessionClaims | null> {
    const payload = await verifyPayload(token, typ, audience);
    const parsed = payload && v.safeParse(ClaimsSchema, payload);
    if (!parsed?.success) return null;
    return { ...parsed.output, iss: options.issuer, aud: audience };
  }

  /** The payload of a valid JWT of this type and audience, or null. */
  async function verifyPayload(token: string, typ: string, audience: string, clockTolerance = options.clockSkewSeconds): Promise<JWTPayload | null> {
    if (typeof token !== 'string' || token.length > 8192) return null;
    try {
      const { payload } = await jwtVerify(
        token,
        (header: JWTHeaderParameters) => {
          const secret = header.kid ? secrets.get(header.kid) : undefined;
          if (!secret) throw new Error('unknown kid');
          return secret;
        },
        {
          algorithms: [ALGORITHM],
          issuer: options.issuer,
          audience,
          typ,
          clockTolerance,
          currentDate: new Date(options.now()),
          requiredClaims: ['exp', 'nbf', 'iat', 'jti', 'sub'],
        },
      );
      return payload;
    } catch {
      return null;
    }
  }

  async function mintTicket(input: TicketInput): Promise<{ ticket: string; claims: TicketClaims }> {
    const iat = seconds();
    const claims: TicketClaims = {
      sid: input.sessionId, sub: input.subject ?? `session:${input.sessionId}`, iat, jti: randomId(16), model: input.model,
      origin: input.origin, exp: iat + input.ttlSeconds, concurrentStreams: input.concurrentStreams,
    };
    const { concurrentStreams, ...rest } = claims;
    const jwt = await new SignJWT({ ...rest, streams: concurrentStreams, iss: options.issuer, aud: ticketAudience, nbf: iat })
      .setProtectedHeader({ alg: ALGORITHM, typ: TICKET_TYPE, kid: signing.kid })
      .sign(await secrets.get(signing.kid)!);
    return { ticket: TICKET_PREFIX + jwt, claims };
  }

  async function verifyTicket(ticket: string): Promise<TicketClaims | null> {
    if (typeof ticket !== 'string' || !ticket.startsWith(TICKET_PREFIX)) return null;
    // No skew allowance: a ticket's 60 s are its whole life.
    const payload = await verifyPayload(ticket.slice(TICKET_PREFIX.length), TICKET_TYPE, ticketAudience, 0);
    const parsed = payload && v.safeParse(TicketSchema, payload);
    if (!parsed?.success) return null;
    const { streams, ...rest } = parsed.output;
    return { ...rest, concurrentStreams: streams };
  }

  return {
    mintAccess: (input) => mint(input, ACCESS_TYPE, options.audience, options.ttlSeconds),
    mintResume: (input) => mint(input, RESUME_TYPE, resumeAudience, options.resumeTtlSeconds),
    verifyAccess,
    verifyResume: (token) => verify(token, RESUME_TYPE, resumeAudience),
    mintTicket,
    verifyTicket,
    policyOf: (claims) => ({ scopes: [...claims.scopes], agents: [...claims.agents], models: [...claims.models], limits: { ...claims.limits } }),
  };
}

/** Claims shared by every request of a cached token: frozen so no request can change them for the next. */
function freezeClaims(claims: SessionClaims): SessionClaims {
  Object.freeze(claims.scopes);
  Object.freeze(claims.agents);
  Object.freeze(claims.models);
  Object.freeze(claims.limits);
  return Object.freeze(claims);
}

/**
 * A bounded cache of verified tokens, least recently used out (CLOCK: a hit only marks the entry; when
 * full, marked entries from the oldest end get a second chance at the young end, the first unmarked one goes).
 */
function createTokenCache(max: number) {
  const entries = new Map<string, { claims: SessionClaims; used: boolean }>();
  const evictOne = () => {
    for (const [token, entry] of entries) {
      entries.delete(token);
      if (!entry.used) return;
      entry.used = false;
      entries.set(token, entry);
    }
  };
  return {
    get(token: string): SessionClaims | undefined {
      const entry = entries.get(token);
      if (!entry) return undefined;
      entry.used = true;
      return entry.claims;
    },
    set(token: string, claims: SessionClaims): void {
      if (max <= 0) return;
      if (entries.size >= max && !entries.has(token)) evictOne();
      entries.set(token, { claims, used: false });
    },
    delete(token: string): void {
      entries.delete(token);
    },
  };
}

/** Whether a string looks like a compact JWS (three base64url parts): used to spot tokens in the wrong place. */
export function looksLikeToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+$/.test(value.trim());
}
