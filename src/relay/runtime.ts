/**
 * The relay's resolved configuration and the per-request state the handlers share. Internal:
 * built once by `createRelay` from its options.
 */
import type { RelayEnv } from './proxy/client-address.js';
import type { BodyRateLimits } from './proxy/body-rate.js';
import type { AddressLimits } from './proxy/limits.js';
import type { RealtimeFloodLimits } from './realtime-guard.js';
import type { RelayPolicy } from './sessions/policy.js';
import type { ResumeLimits, StreamBuffers } from './streams/resumable.js';
import type { OpenStreams } from './sessions/revocation.js';
import type { RouteTable } from './proxy/route-table.js';
import type { SessionTokens } from './sessions/session-tokens.js';
import type { RelayStateStore } from './state/state-store.js';
import type { AttachmentLimits } from './uploads/attachments.js';
import type { SessionRequestKind } from './watch.js';

export type { SessionRequestKind };

/** Passed to the `authorize` hook with the request. */
export interface SessionRequestContext {
  kind: SessionRequestKind;
  /** The request's `Origin` (already checked against the allowed origins), or null for server-side callers. */
  origin: string | null;
  /** The session id the token will carry (new, or the resumed/refreshed one). */
  sessionId: string;
  /** Client address (after `trustProxy`). */
  clientIp: string;
  /** The parsed request body (`{}` when empty); the request's own body has been read. */
  body: Record<string, unknown>;
  /** For resume/refresh: who the session was for and what it was allowed. */
  previous?: { subject: string; policy: RelayPolicy };
}

/**
 * The hook's decision: `false` refuses (403); `true`/nothing keeps the default policy (or, on
 * resume/refresh, the session's policy); an object sets the subject and overrides policy fields.
 */
export type AuthorizeDecision = boolean | void | { subject?: string; policy?: Partial<RelayPolicy> };

/** Decides whether a session may be minted, resumed or refreshed, and with what policy. */
export type AuthorizeHook = (request: Request, context: SessionRequestContext) => AuthorizeDecision | Promise<AuthorizeDecision>;

/** Caps of one realtime session through the relay (the flood caps: realtime-guard.ts). */
export interface RealtimeLimits extends RealtimeFloodLimits {
  /** Largest message a page may send, in bytes (default 256 KB); larger → `error` 413 and close 1009. */
  maxFrameBytes: number;
  /** Audio a session may send in all, in decoded bytes (default 64 MB ≈ 33 min of 16 kHz s16). */
  maxAudioBytes: number;
  /** Longest session, ms (default 30 min). */
  maxSessionMs: number;
  /** Silence in both directions after which the session is closed, ms (default 60 s). */
  idleTimeoutMs: number;
  /**
   * How often open sessions re-read the state store for revocations, ms (default 5 s); superseded by
   * the relay's `revocationCheckMs` option, which covers SSE streams too. Revocations are announced by
   * the store at once; this catches an announcement that was missed.
   */
  revocationCheckMs: number;
}

/** The relay's `feedback` option: where visitors' ratings of replies go (proxy/feedback.ts). */
export interface FeedbackOptions {
  /** The observability dataset each rating becomes a record of (create it once: `POST /v1/observability/datasets`). */
  datasetId: string;
}

/** The resolved configuration every handler reads. */
export interface RelayRuntime {
  basePath: string;
  upstream: {
    baseUrl: string; apiKey: string; fetch: (request: Request) => Promise<Response>; webSocketBaseUrl: () => string;
    /** No `upstream.fetch` was given: the host's own client (`RelayEnv.upstreamSend`, the Node adapter's) is used when it offers one. */
    hostClient: boolean;
  };
  tokens: SessionTokens;
  store: RelayStateStore;
  /** This instance's open SSE streams and realtime sockets, ended on revocation. */
  openStreams: OpenStreams;
  routes: RouteTable;
  isAllowedOrigin: (origin: string, requestUrl: URL) => boolean;
  defaultPolicy: RelayPolicy;
  authorize?: AuthorizeHook;
  addressLimits: AddressLimits;
  realtime: RealtimeLimits;
  heartbeatMs: number;
  streamIdleTimeoutMs: number;
  upstreamTimeoutMs: number;
  retryDelayMs: number;
  /** How slowly request bodies may arrive (408 below). */
  bodyRate: BodyRateLimits;
  /** Whether uploads may name remote files the platform would fetch (transcription `file_url`, OCR http(s) URLs). */
  allowRemoteFiles: boolean;
  /** How many attachments a conversation body may carry, how big and of which types (uploads/attachments.ts). */
  attachments: AttachmentLimits;
  /** Bytes a conversation body may take besides its attachments' `data:` URLs (1 MB, or the host's `bodyLimits.conversations`). */
  conversationTextBytes: number;
  /** Where visitors' ratings of replies go (the feedback route answers 404 without it). */
  feedback: FeedbackOptions | null;
  /** How long conversation ownership is remembered (the resume token's lifetime). */
  ownershipTtlSeconds: number;
  /** Resumable streams (null when turned off with `resume: false`). */
  resume: ResumeRuntime | null;
  now: () => number;
  report: (error: unknown) => void;
  /** Where warnings about risky use go (trustProxy with no proxy in front). */
  warn: (message: string) => void;
  /** Proxies believed in front (`trustProxy`; 0: none): with one, a proxy's sane `X-Request-Id` is taken as the request's id. */
  trustedHops: number;
}

/** Resumable streams: limits, buffers, and the streams this instance relays now (by stream id). */
export interface ResumeRuntime {
  limits: ResumeLimits;
  buffers: StreamBuffers;
  /** Streams relayed by this instance: their session and how to stop them (a user stop). */
  running: Map<string, { sessionId: string; stop: () => void }>;
}

/** What the handlers know about one request. */
export interface RequestState {
  request: Request;
  /** `request.url`, parsed once. */
  url: URL;
  env: RelayEnv | undefined;
  /** The `Origin` header, or null. */
  origin: string | null;
  originAllowed: boolean;
  /** Rate-limit key of the client address. */
  address: string;
  /** The raw client address. */
  clientIp: string;
  /** Milliseconds spent waiting for the upstream (subtracted from the relay's own time). */
  upstreamMs: number;
  /** Sent upstream and answered as `X-Request-Id` (watch.ts). */
  requestId: string;
  /** The route's name for metrics and logs (watch.ts `RequestRecord.route`). */
  route: string;
  /** The kind of session token this request minted, if it did. */
  session: SessionRequestKind | null;
}
