/**
 * `createRelay(options)`: the token relay as a Web-standard fetch handler (its own small dispatcher: the
 * relay has an exact route table, so no router framework stands between the host and the checks).
 *
 *   POST {base}/session        mint / resume / refresh a session token (SessionResponse)
 *   {method} {base}/v1/…       the route table, forwarded to the platform with the relay's key
 *                              (`POST {base}/v1/client/sessions` is answered here: a realtime ticket)
 *   GET  {base}/v1/audio/transcriptions/realtime   WebSocket, through `handleUpgrade` (Node)
 *   POST {base}/operator/revoke  only with `operatorSecret`: revoke a session or a subject (operator.ts)
 *   GET|DELETE {base}/streams/{id}  resume a relayed SSE answer from `Last-Event-ID`, or stop it (resume-route.ts)
 *   GET  {base}/healthz, {base}/readyz  liveness and readiness, no token (health.ts)
 *
 * Every answer, the relay's own errors included, carries `Cache-Control: no-store`,
 * `X-Content-Type-Options: nosniff`, `Server-Timing: relay;dur=…` (the relay's own time), `X-Request-Id`
 * (also sent upstream; watch.ts) and, for allowed origins, the CORS echo.
 */
import { randomId } from './bytes.js';
import { DEFAULT_BODY_RATE_LIMITS, type BodyRateLimits } from './proxy/body-rate.js';
import { addressKey, clientAddress, type RelayEnv } from './proxy/client-address.js';
import { applyCorsHeaders, createOriginCheck, preflightResponse } from './proxy/cors.js';
import { RelayError, internalError, methodNotAllowed, noRoute } from './errors.js';
import type { UpstreamOptions } from './proxy/forward.js';
import { isDatasetId } from './proxy/feedback.js';
import { DEFAULT_ADDRESS_LIMITS, type AddressLimits } from './proxy/limits.js';
import { completePolicy, type RelayPolicy } from './sessions/policy.js';
import { OPERATOR_REVOKE_PATH, checkOperatorSecret, handleOperatorRevoke } from './sessions/operator.js';
import { handlePlatformRequest } from './proxy/proxy.js';
import { createMemoryStreamBuffers, resumeLimitsOf, type ResumeLimits } from './streams/resumable.js';
import { handleStreamRequest } from './streams/resume-route.js';
import { DEFAULT_REALTIME_LIMITS, createRealtimeEndpoint, webSocketBaseOf, type UpgradeOutcome } from './realtime.js';
import type { UpgradeHandler } from '../server/node-serve.js';
import { CONVERSATION_TEXT_BYTES, DEFAULT_BODY_LIMITS, createRouteTable, defaultRoutes, isCleanPath, type BodyLimits, type RelayRoute } from './proxy/route-table.js';
import type { AuthorizeHook, FeedbackOptions, RealtimeLimits, RelayRuntime, RequestState } from './runtime.js';
import { createOpenStreams } from './sessions/revocation.js';
import { createRelayDrain, relayDraining, type DrainOptions, type DrainReport } from './drain.js';
import { handleSessionRequest } from './sessions/sessions.js';
import { createSessionTokens, type RelaySigningKey } from './sessions/session-tokens.js';
import { createRelayHealth } from './health.js';
import { createProxyCheck, refusalReason, requestIdOf, type RefusalReason } from './watch.js';
import { createMemoryStateStore, type RelayStateStore } from './state/state-store.js';
import { attachmentLimitsOf, base64Length, type AttachmentLimits } from './uploads/attachments.js';

/** Options of {@link createRelay}. Only `upstream` is required. */
export interface RelayOptions {
  /** The platform: base URL, API key and (optionally) the fetch function to reach it. */
  upstream: UpstreamOptions;
  /** Path prefix of every relay URL, e.g. `/api` (default `''`). */
  basePath?: string;
  /** Exact page origins allowed to open sessions and call the relay, e.g. `['https://shop.example']` (default none). */
  allowedOrigins?: string[];
  /** Also allow pages served from the relay's own origin (default true; see `publicOrigin`). */
  allowSameOrigin?: boolean;
  /**
   * The relay's public origin, e.g. `https://chat.shop.example`: a page is same-origin only when its
   * Origin equals it (the Host header is not consulted). Without it, same-origin is honoured only when
   * the Host is `localhost` or an IP address, since any other Host could be a DNS-rebound name.
   */
  publicOrigin?: string;
  /** HS256 signing secret (≥ 32 bytes), key id `main`. Ignored when `keys` is given. */
  secret?: string;
  /** Signing keys for rotation: the first signs, all verify. Without `secret`/`keys` a random key is made per process. */
  keys?: RelaySigningKey[];
  /** Token issuer (default `parley-relay`). */
  issuer?: string;
  /** Token audience (default `parley-relay`; resume tokens use `<audience>/resume`). */
  audience?: string;
  /** Session token lifetime in seconds (default 600). */
  tokenTtlSeconds?: number;
  /** Resume token lifetime in seconds (default 30 days); also how long conversation ownership is kept. */
  resumeTtlSeconds?: number;
  /** Clock skew tolerated when checking token times (default 30 s). */
  clockSkewSeconds?: number;
  /**
   * Policy of new sessions; missing fields come from the locked-down default: scope `conversations` only,
   * no agent, no model (a session reaches nothing until you name them), 30 requests/min, burst 10, 2 streams.
   */
  policy?: Partial<RelayPolicy>;
  /** Decides whether a session may be opened/resumed/refreshed and with what policy (default: allow, default policy). */
  authorize?: AuthorizeHook;
  /** Shared state (default: in memory, this process only); `createRedisStateStore` shares it between instances. */
  store?: RelayStateStore;
  /**
   * Secret (≥ 32 bytes) of the operator endpoint `POST {base}/operator/revoke` (see operator.ts); without
   * it the endpoint does not exist (404).
   */
  operatorSecret?: string;
  /**
   * How often open streams and sockets re-read the store for revocations the store's announcement
   * missed, ms (default `realtime.revocationCheckMs`, 5 000). Announced revocations end them at once.
   */
  revocationCheckMs?: number;
  /** Client address of a request (default: from the host env, see `trustProxy`). */
  getClientIp?: (request: Request, env: RelayEnv | undefined) => string | undefined;
  /** Believe `X-Forwarded-For` from this many proxies (`true` = 1; default false). */
  trustProxy?: boolean | number;
  /** Per-address limits (defaults: 120 requests/min, burst 40; 20 sessions/min, burst 10). */
  limits?: Partial<AddressLimits>;
  /**
   * Body caps of the default routes in bytes: conversations 1 MB plus the base64 size of `attachments.maxTotalBytes`
   * (27.7 MB by default; a larger body is refused with 413 as it streams), speech 64 KB, transcription 25 MB, OCR 50 MB.
   */
  bodyLimits?: Partial<BodyLimits>;
  /** The route table (default `defaultRoutes(bodyLimits)`); extend with `[...defaultRoutes(), row]`. */
  routes?: RelayRoute[];
  /** Silence on a stream after which a `: ping` comment is sent (default 15 000 ms). */
  heartbeatMs?: number;
  /**
   * Caps of realtime WebSocket sessions (frame 256 KB, audio 64 MB, 30 min, idle 60 s) and their flood
   * caps (100 messages/s with bursts of 400 and 20 invalid messages per session, close 1008; reading stops
   * while 1 MiB waits for the page, which is closed after 15 s of that).
   */
  realtime?: Partial<RealtimeLimits>;
  /** Upstream silence after which a stream is closed and the upstream aborted (default 300 000 ms). */
  streamIdleTimeoutMs?: number;
  /** Time allowed for the upstream to answer with headers (default 60 000 ms). */
  upstreamTimeoutMs?: number;
  /** Pause before the one retry of a failed upstream call (default 100 ms). */
  retryDelayMs?: number;
  /**
   * Slow request bodies → 408 and the upstream call aborted: no byte for `idleTimeoutMs` (default 10 000),
   * or below `minBytesPerSecond` on average (default 1024; 0 = none) once `graceMs` (default 10 000) passed.
   * Only time spent waiting for the client counts. With the defaults a 1 byte/s body is cut after about 10 s.
   */
  bodyRate?: Partial<BodyRateLimits>;
  /**
   * Let uploads name remote files, which the platform then fetches: transcription `file_url` and OCR
   * http(s) `document_url`/`image_url` (default false: 403 `remote_file_not_allowed`; documents go as
   * `data:` URLs or file parts). Stored files (`file_id`, OCR `file`) are always refused.
   */
  allowRemoteFiles?: boolean;
  /**
   * Attachments of conversation bodies (the `image_url` and `document_url` chunks of `inputs`, and of `messages`
   * on a chat-completion route a host adds with `upload: 'attachments'`): `maxCount` per body (4; 0 refuses any),
   * `maxBytes` decoded per attachment (10 MB), `maxTotalBytes` per body (20 MB; the conversation body cap grows by
   * its base64 size), `types` allowed (PNG, JPEG, GIF, WebP, PDF; among `ATTACHMENT_TYPES`). Each `data:` URL's
   * bytes must be its declared type. Refusals: 413 (count, size), 415 (type), 400 (malformed), 403 (remote URL
   * without `allowRemoteFiles`).
   */
  attachments?: Partial<AttachmentLimits>;
  /**
   * Visitors' ratings of replies (`<agent-chat>`'s thumbs): with `{ datasetId }`, `POST {base}/v1/conversations/{id}/feedback`
   * writes each rating as a record of that observability dataset on the platform (the conversation's messages up to the
   * rated reply, the rating and the comment; feedback.ts), and session answers list `feedback` in `features`. A session
   * rates only its own conversations. Off (the route is 404) without it.
   */
  feedback?: FeedbackOptions;
  /**
   * Resumable streams: every relayed SSE answer gets a `Parley-Stream-Id` and ids on its events, and its
   * events are kept so a page whose connection dropped resumes it at `GET {base}/streams/{id}` (in the
   * store's Redis Streams when the store is Redis, so on any instance; else in this process). Limits:
   * `ttlSeconds` kept after the end (300), `maxBytesPerStream` (4 MiB; beyond it not resumable),
   * `maxBytesTotal` (64 MiB in memory), `maxStreams` (1 000 in memory), `maxResumesPerStream` (4).
   * `false` turns it off (a page going away then aborts the upstream at once, as before).
   */
  resume?: Partial<ResumeLimits> | false;
  /** Clock in milliseconds (tests; default `Date.now`). */
  now?: () => number;
  /** Where unexpected errors are reported (default console.error). Never receives the upstream key. */
  onError?: (error: unknown) => void;
  /**
   * Where warnings about risky use are told (default console.warn): with `trustProxy`, the first request that
   * arrives without `X-Forwarded-For` (it did not come through the proxy, so clients can spoof their address).
   */
  onWarning?: (message: string) => void;
}

/** The relay: a Web-standard fetch handler. */
export interface Relay {
  /**
   * Answers one request. `env` tells the relay what the host knows (client address, raw target);
   * `@hono/node-server` passes `{incoming}` itself, so `serve({ fetch: relay.fetch })` works.
   */
  fetch(request: Request, env?: RelayEnv): Promise<Response>;
  /**
   * Node `upgrade` handler for the realtime WebSocket (`serveFetch(…, { upgrade: [relay.handleUpgrade] })`):
   * takes exactly `{base}/v1/audio/transcriptions/realtime?model=…`, returns false for anything else.
   */
  handleUpgrade: UpgradeHandler;
  /**
   * Calls `listener` once per realtime upgrade `handleUpgrade` took, when it is accepted (101) or refused (its
   * status and refusal reason): what the Node adapter's metrics and access log count. Returns the unlink.
   */
  observeUpgrades(listener: (outcome: UpgradeOutcome) => void): () => void;
  /**
   * Ends a session: its tokens, resume tokens and unused tickets are refused from now on, on every
   * instance sharing the store; its open SSE streams (an error event, then the end) and realtime
   * sockets (an `error` event, close 1008) are closed at once here and, through the store's
   * announcement, on the other instances (at the latest within `revocationCheckMs`).
   */
  revokeSession(sessionId: string): Promise<void>;
  /**
   * Ends every session of an end user, as named by the `authorize` hook's `subject`: every token issued
   * to it up to now is refused and its open streams and sockets are closed, as for `revokeSession`.
   * Tokens minted afterwards work (the user can come back). Resolves with the revocation time (ms).
   */
  revokeSubject(subject: string): Promise<number>;
  /**
   * Graceful restart (drain.ts; the Node adapter's `served.drain()` calls it on SIGTERM): new requests get 503
   * `relay_draining`; with Redis the pages reading replies here resume on another instance while this one reads
   * the upstream to the end; what is still open at `timeoutMs` ends (streams with an error event, sockets 1001).
   * Called again, it returns the same drain.
   */
  drain(options: DrainOptions): Promise<DrainReport>;
  /** True once {@link drain} was called (a readiness check answers "not ready" then). */
  readonly draining: boolean;
}

/** Creates the relay; throws on invalid options (short secret, malformed origin). */
export function createRelay(options: RelayOptions): Relay {
  const runtime = resolve(options);
  const realtime = createRealtimeEndpoint(runtime);
  const drain = createRelayDrain(runtime);
  const base = runtime.basePath;
  const getClientIp = options.getClientIp ?? ((request: Request, env: RelayEnv | undefined) => clientAddress(request, env, options));
  // Revocations outlive every token they cover: resume tokens last `resumeTtlSeconds`, plus the clock skew.
  const revocationTtl = runtime.ownershipTtlSeconds + 60 + (options.clockSkewSeconds ?? 30);
  // This instance's streams end even when the store fails to record or announce the revocation (the
  // caller still gets the store's error, and other instances' polls find what was recorded).
  const revokeSession = async (sessionId: string) => {
    try {
      await runtime.store.revoke(sessionId, revocationTtl);
    } finally {
      runtime.openStreams.apply({ kind: 'session', id: sessionId });
    }
  };
  const revokeSubject = async (subject: string) => {
    const at = runtime.now();
    try {
      await runtime.store.revokeSubject(subject, at, revocationTtl);
    } finally {
      runtime.openStreams.apply({ kind: 'subject', subject, at });
    }
    return at;
  };

  const sessionPath = `${base}/session`;
  const operatorPath = options.operatorSecret === undefined ? undefined : `${base}${OPERATOR_REVOKE_PATH}`;
  const platformPrefix = `${base}/v1/`;
  const streamsPrefix = `${base}/streams/`;
  const healthzPath = `${base}/healthz`;
  const readyzPath = `${base}/readyz`;
  const health = createRelayHealth(runtime);
  const hops = runtime.trustedHops;
  const proxyCheck = createProxyCheck(hops, runtime.warn);
  /** The relay's own route table: `/session`, `/operator/revoke` (with a secret), `/v1/…`; anything else 404. */
  const dispatch = (state: RequestState): Promise<Response> | Response => {
    if (drain.draining) throw relayDraining();
    const path = state.url.pathname;
    const method = state.request.method;
    if (path.startsWith(platformPrefix)) return handlePlatformRequest(runtime, state, path.slice(base.length));
    if (path.startsWith(streamsPrefix) && !path.includes('/', streamsPrefix.length)) {
      state.route = method === 'DELETE' ? 'streams.stop' : 'streams.resume';
      return handleStreamRequest(runtime, state, path.slice(streamsPrefix.length));
    }
    if (path === sessionPath) {
      state.route = 'session';
      if (method === 'POST') return handleSessionRequest(runtime, state);
      if (method === 'OPTIONS') return preflightResponse(state.origin, state.originAllowed, ['POST']);
      throw methodNotAllowed(['POST']);
    }
    if (path === healthzPath || path === readyzPath) {
      state.route = path === healthzPath ? 'healthz' : 'readyz';
      state.originAllowed = false; // for probes, not pages
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(['GET', 'HEAD']);
      return path === healthzPath ? health.healthz() : health.readyz();
    }
    if (path === operatorPath) {
      state.route = 'operator.revoke';
      state.originAllowed = false; // server-to-server: never a CORS answer
      if (method !== 'POST') throw methodNotAllowed(['POST']);
      return handleOperatorRevoke(runtime, state, options.operatorSecret!, { revokeSession, revokeSubject });
    }
    throw noRoute();
  };
  /** The answer to a thrown error: a `RelayError` as it says, anything else reported and answered 500. */
  const errorAnswer = (err: unknown): { response: Response; originRefused: boolean; refusal: RefusalReason | null } => {
    if (err instanceof RelayError) return { response: err.toResponse(), originRefused: err.code === 'origin_not_allowed', refusal: refusalReason(err) };
    runtime.report(err);
    return { response: internalError().toResponse(), originRefused: false, refusal: null };
  };

  /** Request state, raw-path check, dispatch, errors, and the headers every answer gets (see {@link finish}). */
  const handle = async (request: Request, env: RelayEnv | undefined): Promise<Response> => {
    const started = performance.now();
    let state: RequestState;
    try {
      const url = new URL(request.url);
      const origin = request.headers.get('origin');
      const clientIp = getClientIp(request, env) ?? 'unknown';
      state = {
        request, url, env, origin,
        originAllowed: origin !== null && runtime.isAllowedOrigin(origin, url),
        clientIp, address: addressKey(clientIp), upstreamMs: 0,
        requestId: requestIdOf(request, hops > 0), route: 'unknown', session: null,
      };
    } catch (err) {
      return errorAnswer(err).response;
    }
    if (proxyCheck && state.url.pathname !== healthzPath && state.url.pathname !== readyzPath) proxyCheck(request);
    let response: Response;
    let originRefused = false;
    let refusal: RefusalReason | null = null;
    try {
      response = pathIsClean(state.url.pathname, env) ? await dispatch(state) : noRoute().toResponse();
    } catch (err) {
      ({ response, originRefused, refusal } = errorAnswer(err));
    }
    finish(response, state, started, originRefused, refusal);
    // HEAD is answered as its GET would be, without a body.
    return request.method === 'HEAD' && response.body !== null ? new Response(null, response) : response;
  };

  return {
    fetch: handle,
    handleUpgrade: realtime.handleUpgrade,
    observeUpgrades: realtime.observeUpgrades,
    revokeSession,
    revokeSubject,
    drain: drain.drain,
    get draining() {
      return drain.draining;
    },
  };
}

/**
 * Rewrites the answer's headers: no caching, no sniffing, the relay's time, the request id, CORS (readable refusals
 * included); and writes the request's record for a host that asked for it (`env.record === null`).
 */
function finish(response: Response, state: RequestState, started: number, originRefused: boolean, refusal: RefusalReason | null): void {
  const headers = response.headers;
  const total = performance.now() - started;
  const own = Math.max(0, total - state.upstreamMs);
  const streaming = (headers.get('content-type') ?? '').startsWith('text/event-stream');
  headers.set('cache-control', streaming ? 'no-store, no-transform' : 'no-store');
  headers.set('x-content-type-options', 'nosniff');
  headers.set('x-request-id', state.requestId);
  headers.set('server-timing', state.upstreamMs > 0
    ? `relay;dur=${own.toFixed(2)}, upstream;dur=${state.upstreamMs.toFixed(2)}`
    : `relay;dur=${own.toFixed(2)}`);
  if (state.request.method !== 'OPTIONS') applyCorsHeaders(headers, state.origin, state.originAllowed, originRefused);
  if (state.env?.record === null) {
    state.env.record = {
      requestId: state.requestId, route: state.route, refusal, session: state.session, ownMs: own, upstreamMs: state.upstreamMs, clientIp: state.clientIp,
    };
  }
}

/**
 * The path as the client sent it must already be clean: the URL parser resolves `%2e%2e` and
 * `\`, so the raw target (from the host env, when there is one) is checked too.
 */
function pathIsClean(path: string, env: RelayEnv | undefined): boolean {
  if (!isCleanPath(path)) return false;
  const raw = env?.rawTarget ?? env?.incoming?.url;
  if (raw === undefined) return true;
  const rawPath = raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0]!;
  return rawPath === path;
}

function resolve(options: RelayOptions): RelayRuntime {
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath && !isCleanPath(basePath)) throw new Error(`relay: basePath '${options.basePath}' must look like /api`);
  if (!options.upstream?.baseUrl || !options.upstream.apiKey) throw new Error('relay: upstream.baseUrl and upstream.apiKey are required');
  new URL(options.upstream.baseUrl); // throws on a malformed URL

  const now = options.now ?? Date.now;
  const keys = options.keys?.length ? options.keys
    : [{ kid: options.secret ? 'main' : `ephemeral-${randomId(4)}`, secret: options.secret ?? randomId(32) }];
  const resumeTtlSeconds = options.resumeTtlSeconds ?? 30 * 24 * 3600;
  const attachments = attachmentLimitsOf(options.attachments);
  const report = options.onError ?? ((e: unknown) => console.error('[parley relay]', e));
  const warn = options.onWarning ?? ((message: string) => console.warn(`[parley relay] ${message}`));
  const upstreamFetch = options.upstream.fetch ?? ((request: Request) => fetch(request));
  const wsBase = options.upstream.webSocketBaseUrl ?? webSocketBaseOf(options.upstream.baseUrl);
  if (options.operatorSecret !== undefined) checkOperatorSecret(options.operatorSecret);
  const store = options.store ?? createMemoryStateStore({ now });
  const idleTimeoutMs = options.streamIdleTimeoutMs ?? 300_000;
  let resume: RelayRuntime['resume'] = null;
  if (options.resume !== false) {
    const limits = resumeLimitsOf(options.resume);
    const liveExtraSeconds = Math.ceil(idleTimeoutMs / 1000);
    const buffers = store.streamBuffers?.(limits, { liveExtraSeconds }) ?? createMemoryStreamBuffers(limits, now, liveExtraSeconds);
    const running: NonNullable<RelayRuntime['resume']>['running'] = new Map();
    // A user stop announced by any instance stops the stream where it runs (here, if it does).
    buffers.onStopped((streamId) => running.get(streamId)?.stop());
    resume = { limits, buffers, running };
  }
  return {
    basePath,
    upstream: {
      baseUrl: options.upstream.baseUrl, apiKey: options.upstream.apiKey, fetch: upstreamFetch,
      hostClient: options.upstream.fetch === undefined,
      webSocketBaseUrl: typeof wsBase === 'function' ? wsBase : () => wsBase,
    },
    tokens: createSessionTokens({
      keys,
      issuer: options.issuer ?? 'parley-relay',
      audience: options.audience ?? 'parley-relay',
      ttlSeconds: options.tokenTtlSeconds ?? 600,
      resumeTtlSeconds,
      clockSkewSeconds: options.clockSkewSeconds ?? 30,
      now,
    }),
    store,
    openStreams: createOpenStreams(store, options.revocationCheckMs ?? options.realtime?.revocationCheckMs ?? DEFAULT_REALTIME_LIMITS.revocationCheckMs, report),
    routes: createRouteTable(options.routes ?? defaultRoutes({
      ...DEFAULT_BODY_LIMITS,
      // Room for the attachments the policy allows, unless the host set the cap itself.
      conversations: CONVERSATION_TEXT_BYTES + base64Length(attachments.maxTotalBytes),
      ...options.bodyLimits,
    })),
    isAllowedOrigin: createOriginCheck({
      allowedOrigins: options.allowedOrigins ?? [], allowSameOrigin: options.allowSameOrigin ?? true, publicOrigin: options.publicOrigin,
    }),
    defaultPolicy: completePolicy(options.policy),
    authorize: options.authorize,
    addressLimits: { ...DEFAULT_ADDRESS_LIMITS, ...options.limits },
    realtime: { ...DEFAULT_REALTIME_LIMITS, ...options.realtime },
    heartbeatMs: options.heartbeatMs ?? 15_000,
    streamIdleTimeoutMs: idleTimeoutMs,
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? 60_000,
    retryDelayMs: options.retryDelayMs ?? 100,
    bodyRate: { ...DEFAULT_BODY_RATE_LIMITS, ...options.bodyRate },
    allowRemoteFiles: options.allowRemoteFiles ?? false,
    attachments,
    conversationTextBytes: options.bodyLimits?.conversations ?? CONVERSATION_TEXT_BYTES,
    feedback: options.feedback ? checkedFeedback(options.feedback) : null,
    ownershipTtlSeconds: resumeTtlSeconds,
    resume,
    now,
    report,
    warn,
    trustedHops: options.trustProxy === true ? 1 : typeof options.trustProxy === 'number' ? options.trustProxy : 0,
  };
}

function checkedFeedback(feedback: FeedbackOptions): FeedbackOptions {
  if (!isDatasetId(feedback.datasetId ?? '')) throw new Error(`relay: feedback.datasetId '${feedback.datasetId}' must be a dataset id (letters, digits, _ and -)`);
  return { datasetId: feedback.datasetId };
}
