/**
 * The platform routes under `{base}/v1/…`, in the order the checks run:
 *   route table (404/405, preflight) → origin (403) → token (401) → scope (403) → rate limits (429)
 *   → body framing (415/413/400) → path parameters and ownership (403/404) → body read and body
 *   scope (413/408/400/403; OCR documents 415/403) → stream cap (429) → upload read ahead and checked
 *   (413/408/415/403/400, upload.ts) → upstream call → answer (headers rebuilt, SSE passed through,
 *   ownership learned, the upstream key scrubbed from headers and bodies).
 */
import { SMALL_ANSWER_BYTES, bodyReaderOf, hasBody, isSmallLength, withBodyStream, type BodySource } from './buffered-body.js';
import { createClientSession } from '../sessions/client-sessions.js';
import { preflightResponse } from './cors.js';
import { authenticate } from '../sessions/credentials.js';
import { RelayError, badRequest, forbidden, methodNotAllowed, noRoute, payloadTooLarge, requestTimeout, unauthorized, upstreamError } from '../errors.js';
import { conversationErrorFrame, genericErrorFrame, relayResumableEventStream } from '../streams/event-stream.js';
import { callUpstream, downstreamHeaders, readUpstreamText, upstreamRequestHeaders } from './forward.js';
import { conversationIdOfEvent, conversationIdOfJson, listOwnConversations, recordOwner, requireOwner } from './conversations.js';
import { limitRequest, openStreamSlot, type StreamSlot } from './limits.js';
import { ANY, isAgentAllowed, isAgentVersionAllowed, isAllowed } from '../sessions/policy.js';
import { rateGuardedBody } from './body-rate.js';
import { checkContentType, checkDeclaredLength, parseJsonObject, readCapped } from './request-body.js';
import { newStreamId } from '../streams/resumable.js';
import { createKeyScrubber, type KeyScrubber } from './scrub.js';
import { audioFormRules, checkOcrDocument, guardUpload, missingBoundary, type GuardedUpload, type UploadChecks } from '../uploads/upload.js';
import { upstreamUrl, type RelayRoute } from './route-table.js';
import type { RelayEnv } from './client-address.js';
import type { RelayRuntime, RequestState } from '../runtime.js';
import type { SessionClaims } from '../sessions/session-tokens.js';

/** Answers a request whose path (below the base path) starts with `/v1/`. */
export async function handlePlatformRequest(runtime: RelayRuntime, state: RequestState, path: string): Promise<Response> {
  const { request } = state;
  if (request.method === 'OPTIONS') {
    const methods = runtime.routes.methodsFor(path);
    if (!methods.length) throw noRoute();
    return preflightResponse(state.origin, state.originAllowed, methods);
  }
  const match = runtime.routes.match(request.method, path);
  if (match.kind === 'none') throw noRoute();
  if (match.kind === 'wrong-method') throw methodNotAllowed(match.allow);
  const { route, params } = match;

  if (state.origin && !state.originAllowed) throw forbidden('This origin may not call the relay', 'origin_not_allowed');
  const claims = await authenticate(runtime, state);
  if (!claims.scopes.includes(route.scope)) throw forbidden(`This session may not use ${route.scope}`, 'scope_not_allowed');
  await limitRequest(runtime.store, state.address, claims.sid, claims.limits, runtime.addressLimits);

  if (route.body) {
    checkContentType(request, route.body.kind);
    checkDeclaredLength(request, route.body.maxBytes);
  }
  checkParams(route, params, claims);
  const conversationId = params.conversation_id;
  if (conversationId && route.conversation?.startsWith('owned')) await requireOwner(runtime, conversationId, claims.sid);
  if (route.special === 'list-conversations') return listOwnConversations(runtime, state, claims.sid);

  let json: Record<string, unknown> | undefined;
  let bytes: Uint8Array | undefined;
  if (route.body?.kind === 'json') {
    bytes = state.env?.readBody
      ? await readHostBody(state.env.readBody, route.body.maxBytes, runtime)
      : await readCapped(request.body && rateGuardedBody(request.body, runtime.bodyRate), route.body.maxBytes);
    json = parseJsonObject(bytes);
    if (route.special === 'client-session') return createClientSession(runtime, state, json, claims);
    checkBody(route, json, claims);
    if (route.scope === 'conversations') checkTools(json);
    if (route.upload === 'ocr-document') checkOcrDocument(json, runtime);
  }
  // An upload holds a slot whatever it asks for: the platform streams a transcription when the form's
  // `stream` field says so (not by Accept), and an upload is a long request either way.
  const wantsStream = (route.streamFromBody && json?.stream === true) || route.body?.kind === 'multipart';
  const slot = wantsStream ? await openStreamSlot(runtime.store, claims.sid, claims.limits.concurrentStreams, runtime.report) : null;
  try {
    return await forward({ runtime, state, route, params, claims, body: bytes, slot });
  } catch (err) {
    slot?.release();
    throw err;
  }
}

/** Reads a JSON body through the host (Node: straight from the socket), with the same cap and rate guards as the Web path. */
async function readHostBody(read: NonNullable<RelayEnv['readBody']>, maxBytes: number, runtime: RelayRuntime): Promise<Uint8Array> {
  const rate = runtime.bodyRate;
  try {
    return await read({ maxBytes, ...rate });
  } catch (err) {
    const reason = (err as { reason?: string }).reason;
    if (reason === 'too-large') throw payloadTooLarge(maxBytes);
    if (reason === 'idle') throw requestTimeout(`No request body bytes arrived for ${rate.idleTimeoutMs / 1000} s`);
    if (reason === 'slow') throw requestTimeout(`The request body arrived slower than ${rate.minBytesPerSecond} bytes/s`);
    throw clientClosed();
  }
}

/** Path parameters naming agents or models must be allowed by the token. */
function checkParams(route: RelayRoute, params: Record<string, string>, claims: SessionClaims): void {
  const agent = route.checkParam?.agent && params[route.checkParam.agent];
  if (agent && !isAgentAllowed(claims.agents, agent)) throw forbidden(`This session may not use agent '${agent}'`, 'agent_not_allowed');
  const model = route.checkParam?.model && params[route.checkParam.model];
  if (model && !isAllowed(claims.models, model)) throw forbidden(`This session may not use model '${model}'`, 'model_not_allowed');
}

/**
 * Body fields naming agents or models must be allowed by the token (the token, not the body, decides):
 * on every route that has them (start, append, restart, speech, OCR), in handoff entries of `inputs`
 * (a handed-to agent speaks at its current version, so only an unpinned entry allows it), and
 * `agent_version` against pinned agents. An absent field is the platform's choice (the conversation's
 * own agent and version, the default speech model), not the caller's.
 */
function checkBody(route: RelayRoute, body: Record<string, unknown>, claims: SessionClaims): void {
  const checks = route.checkBody;
  if (!checks) return;
  const agent = checks.agent ? nameIn(body, checks.agent) : undefined;
  if (agent !== undefined && !isAgentAllowed(claims.agents, agent)) throw agentNotAllowed(agent);
  const model = checks.model ? nameIn(body, checks.model) : undefined;
  if (model !== undefined && !isAllowed(claims.models, model)) throw forbidden(`This session may not use model '${model}'`, 'model_not_allowed');
  if (checks.agentVersion) {
    const version = versionIn(body, checks.agentVersion);
    if (!isAgentVersionAllowed(claims.agents, agent, version)) {
      throw forbidden(agent === undefined
        ? `This session may not ask for agent_version '${version}'`
        : `This session may use agent '${agent}' only at its pinned version`, 'agent_not_allowed');
    }
  }
  const entries = checks.entries && body[checks.entries];
  if (!Array.isArray(entries)) return;
  for (const entry of entries) {
    if (entry && typeof entry === 'object' && (entry as { type?: unknown }).type === 'agent.handoff') {
      const next = nameIn(entry as Record<string, unknown>, 'next_agent_id');
      if (next !== undefined && !isAllowed(claims.agents, next)) throw agentNotAllowed(next);
    }
  }
}

/**
 * Tools a page may give a conversation: only its own `function` tools (the page runs them). Built-in
 * tools (web search, code interpreter, image generation) run and bill on the platform key, and
 * connectors and document libraries reach the account's data by id: the key holder gives those to an
 * agent, and a page talks to that agent. Anything else in `tools` is refused with 403 `tool_not_allowed`.
 */
function checkTools(body: Record<string, unknown>): void {
  const tools = body.tools;
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) throw badRequest('tools must be an array');
  for (const tool of tools) {
    const type = tool && typeof tool === 'object' ? (tool as { type?: unknown }).type : undefined;
    if (type === 'function') continue;
    const named = typeof type === 'string' ? `'${type.slice(0, 40)}' tools` : 'tools other than functions';
    throw forbidden(`Pages may give a conversation only function tools, not ${named}; give built-in tools, connectors and libraries to an agent`, 'tool_not_allowed');
  }
}

const agentNotAllowed = (agent: string) => forbidden(`This session may not use agent '${agent}'`, 'agent_not_allowed');

/** A body field naming an agent or a model: absent (or null) → undefined, else it must be a string. */
function nameIn(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  return value;
}

/** An `agent_version` field: absent (or null) → undefined, a number or an alias → its text. */
function versionIn(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && value !== '') return value;
  throw badRequest(`${field} must be a version number or an alias`);
}

/** One request on its way upstream: what was decided about it so far. */
interface ForwardJob {
  runtime: RelayRuntime;
  state: RequestState;
  route: RelayRoute;
  params: Record<string, string>;
  claims: SessionClaims;
  /** The JSON body, read and checked (absent for bodiless and streamed-upload routes). */
  body: Uint8Array | undefined;
  slot: StreamSlot | null;
}

/** The upstream side of a job: its abort controller and the client-abort link. */
interface Exchange {
  controller: AbortController;
  /** Unlinks the client's abort signal: called once the upstream answer is complete (completion is not an abort). */
  detach: () => void;
}

async function forward(job: ForwardJob): Promise<Response> {
  const { runtime, state, route } = job;
  const { request } = state;
  const controller = new AbortController();
  // The client going away cancels the upstream request, until the upstream answer is complete.
  const onClientGone = () => controller.abort(clientClosed());
  const exchange: Exchange = { controller, detach: whenClientGone(state, onClientGone) };

  // A streamed upload is counted, timed and (transcription) scanned as it passes; see upload.ts.
  let counted: GuardedUpload | undefined;
  if (route.body?.kind === 'multipart' && request.body) {
    try {
      counted = await guardUpload(request.body, uploadChecks(job), (error) => controller.abort(error));
    } catch (err) {
      exchange.detach();
      throw err;
    }
  }
  const url = upstreamUrl(runtime.upstream.baseUrl, route, job.params, state.url.searchParams);
  const headers = upstreamRequestHeaders(request, runtime.upstream.apiKey);
  const build = () => new Request(url, {
    method: route.method,
    headers,
    body: counted ? counted.stream : job.body,
    signal: controller.signal,
    redirect: 'manual',
    ...(counted ? { duplex: 'half' } : {}),
  } as RequestInit);
  // The host's own client (Node: keep-alive node:http), when the relay was given no fetch of its own.
  const hostSend = runtime.upstream.hostClient ? state.env?.upstreamSend : undefined;
  const send = hostSend && (() => hostSend({
    url: String(url), method: route.method, headers, body: counted ? counted.stream : job.body, signal: controller.signal,
  }));

  const started = performance.now();
  let response: Response;
  try {
    response = await callUpstream({
      build, send, controller, fetch: runtime.upstream.fetch, retryable: !counted,
      timeoutMs: runtime.upstreamTimeoutMs, retryDelayMs: runtime.retryDelayMs,
    });
  } catch (err) {
    exchange.detach();
    if (counted?.failure) throw counted.failure;
    throw err;
  } finally {
    state.upstreamMs += performance.now() - started;
  }
  if (counted?.failure) {
    // The upstream answered before noticing the cut body: the upload still failed.
    exchange.detach();
    controller.abort();
    void response.body?.cancel().catch(() => {});
    throw counted.failure;
  }

  try {
    return await answer(job, response, exchange);
  } catch (err) {
    exchange.detach();
    throw err;
  }
}

const clientClosed = () => new RelayError(499, 'Request aborted by the client', 'invalid_request_error', 'client_closed_request');
/** The reason a stream ends with when its user stopped it (`DELETE {base}/streams/{id}`). */
const streamStopped = () => new RelayError(499, 'The reply was stopped', 'invalid_request_error', 'stream_stopped');

/**
 * Calls `listener` once when the client goes away (at once when it is gone already): through the host's
 * hook when it has one (Node), else `request.signal`. Returns the unlink.
 */
export function whenClientGone(state: RequestState, listener: () => void): () => void {
  const hook = state.env?.onClientGone;
  if (hook) return hook(listener);
  const signal = state.request.signal;
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** What a streamed upload is checked for: its cap, its pace and, for transcription, its form. */
function uploadChecks({ runtime, state, route, claims }: ForwardJob): UploadChecks {
  const checks: UploadChecks = { maxBytes: route.body!.maxBytes, rate: runtime.bodyRate };
  if (route.upload === 'audio-form') {
    const form = audioFormRules(state.request.headers.get('content-type'), claims.models, runtime);
    if (!form) throw missingBoundary();
    checks.form = form;
  }
  return checks;
}

/** Turns the upstream answer into the client answer. */
async function answer(job: ForwardJob, response: Response, { controller, detach }: Exchange): Promise<Response> {
  const { runtime, route, claims, slot } = job;
  const status = response.status;

  // Upstream failures are answered in the relay's words: nothing of the upstream body reaches the client.
  if (status >= 500 || status === 401 || (status >= 300 && status < 400)) {
    void response.body?.cancel().catch(() => {});
    slot?.release();
    detach();
    const error = status >= 500
      ? upstreamError([500, 502, 503, 504].includes(status) ? status : 502)
      : upstreamError(502, 'The relay could not authenticate to the platform', 'upstream_auth_failed');
    const retryAfter = response.headers.get('retry-after');
    if (retryAfter && /^\d{1,6}$/.test(retryAfter)) error.headers['retry-after'] = retryAfter;
    throw error;
  }

  const headers = downstreamHeaders(response.headers, runtime.upstream.apiKey);
  const creates = route.conversation === 'creates' || route.conversation === 'owned+creates';
  const isEventStream = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');

  if (isEventStream && status === 200 && hasBody(response)) {
    headers.set('x-accel-buffering', 'no');
    // Resumable (resumable.ts): a stream id, ids on events, the events kept; the page going away no longer
    // aborts the upstream (it is read on into the buffer), only a user stop (DELETE) or a revocation does.
    const resume = runtime.resume;
    const streamId = resume ? newStreamId() : undefined;
    const buffer = resume && streamId ? resume.buffers.start(streamId, claims.sid) : null;
    if (streamId) headers.set('parley-stream-id', streamId);
    // From here this function, not the exchange, decides what the page going away does.
    detach();
    // Registered while open: a revocation of the session (or of its subject) ends it, on every instance.
    const stop = new AbortController();
    // A revocation or a user stop may come from another request: it settles a promise, and the abort runs as its reaction, in
    // this request's own context (workerd refuses to abort this request's I/O from another request's handler).
    let ended!: (reason: RelayError) => void;
    void new Promise<RelayError>((resolve) => { ended = resolve; }).then((reason) => stop.abort(reason));
    let unlinkClient = () => {};
    // On a host that ends a request's I/O with its client (workerd), the reply is read on only while the
    // host is told to wait for it.
    let settle = () => {};
    if (buffer && job.state.env?.waitUntil) job.state.env.waitUntil(new Promise<void>((resolve) => { settle = resolve; }));
    const unregister = runtime.openStreams.add({
      sessionId: claims.sid, subject: claims.sub, issuedAt: claims.iat,
      end: () => ended(unauthorized('The session was revoked')),
    });
    if (streamId) resume!.running.set(streamId, { sessionId: claims.sid, stop: () => ended(streamStopped()) });
    const relayed = relayResumableEventStream(bodyReaderOf(response), {
      heartbeatMs: runtime.heartbeatMs,
      idleTimeoutMs: runtime.streamIdleTimeoutMs,
      errorFrame: route.streamErrorEvent === 'conversation' ? conversationErrorFrame : genericErrorFrame,
      onFirstEvent: creates
        ? (event) => recordOwner(runtime, conversationIdOfEvent(event), claims.sid).catch(runtime.report)
        : undefined,
      abortUpstream: () => controller.abort(),
      scrubber: createKeyScrubber(runtime.upstream.apiKey),
      stop: stop.signal,
      streamId,
      buffer,
      onEnd: () => {
        settle();
        unlinkClient();
        unregister();
        if (streamId) resume!.running.delete(streamId);
        slot?.release();
      },
    });
    // The client going away: a resumable stream reads on (detached); any other ends (workerd never cancels a
    // body whose client left, it only aborts `request.signal`).
    unlinkClient = whenClientGone(job.state, () => { if (!relayed.detach()) stop.abort(clientClosed()); });
    return withBodyStream(new Response(relayed.body, { status, headers }), relayed.body);
  }
  slot?.release();

  const filterModels = route.special === 'list-models' && !claims.models.includes(ANY) && status === 200;
  if (status >= 400 || creates || filterModels) {
    // Small answers read whole: errors (scrubbed), created conversations (to learn the id), model lists (to filter).
    let text = await readUpstreamText(response, runtime.upstream.apiKey);
    detach();
    if (status === 200 && creates) await recordOwner(runtime, conversationIdOfJson(text), claims.sid);
    if (filterModels) text = filterModelList(text, claims.models);
    return new Response(text, { status, headers });
  }
  const conversationId = job.params.conversation_id;
  if (route.method === 'DELETE' && status < 300 && conversationId) await runtime.store.forgetConversation(conversationId);
  // (`response.body` is not touched here: a host client's small answer has its bytes beside it, see buffered-body.ts.)
  if (status !== 204 && status !== 304 && isSmallJson(response.headers)) {
    // Read whole (scrubbed) and answered in one write: cheaper than passing a stream through for a few bytes.
    const text = await readUpstreamText(response, runtime.upstream.apiKey, SMALL_ANSWER_BYTES);
    detach();
    return new Response(text, { status, headers });
  }
  if (status === 204 || status === 304 || !hasBody(response)) {
    detach();
    return new Response(null, { status, headers });
  }
  return new Response(trackEnd(bodyReaderOf(response), createKeyScrubber(runtime.upstream.apiKey), detach, () => controller.abort()), { status, headers });
}

/** A JSON answer whose declared length is at most {@link SMALL_ANSWER_BYTES}. */
function isSmallJson(headers: Headers): boolean {
  return isSmallLength(headers.get('content-length')) && /^application\/json\b/i.test(headers.get('content-type') ?? '');
}

/** Keeps only the model cards (by id or alias) the session may use. */
function filterModelList(text: string, allowed: string[]): string {
  try {
    const list = JSON.parse(text) as { data?: Array<{ id?: string; aliases?: string[] }> };
    if (Array.isArray(list.data)) {
      list.data = list.data.filter((m) => [m.id ?? '', ...(m.aliases ?? [])].some((name) => isAllowed(allowed, name)));
    }
    return JSON.stringify(list);
  } catch {
    throw upstreamError(502, 'The platform answered a model list the relay could not read');
  }
}

/**
 * Passes a body through with the key scrubbed out; calls `onDone` when it ends, and `onCancel` when
 * the client stops reading.
 */
function trackEnd(reader: BodySource, scrubber: KeyScrubber, onDone: () => void, onCancel: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          onDone();
          const rest = scrubber.flush();
          if (rest.length) controller.enqueue(rest);
          controller.close();
        } else {
          const passed = scrubber.push(value);
          if (passed.length) controller.enqueue(passed);
        }
      } catch (err) {
        onDone();
        controller.error(err);
      }
    },
    cancel(reason) {
      onDone();
      onCancel();
      void reader.cancel(reason).catch(() => {});
    },
  });
}
