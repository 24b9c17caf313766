/**
 * The platform routes under `{base}/v1/…`, in the order the checks run:
 *   route table (404/405, preflight) → origin (403) → token (401) → scope (403) → rate limits (429)
 *   → body framing (415/413/400) → path parameters and ownership (403/404) → body read and body
 *   scope (413/408/400/403; OCR documents 415/403; attachments 413/415/403/400) → stream cap (429) → upload read ahead and checked
 *   (413/408/415/403/400, upload.ts) → upstream call → answer (headers rebuilt, SSE passed through,
 *   ownership learned, the upstream key scrubbed from headers and bodies).
 * The checks are here, in that order; the upstream call is exchange.ts and the answer answer.ts.
 */
import { createClientSession } from '../sessions/client-sessions.js';
import { preflightResponse } from './cors.js';
import { authenticate } from '../sessions/credentials.js';
import { badRequest, clientClosed, forbidden, methodNotAllowed, noRoute, payloadTooLarge, requestTimeout } from '../errors.js';
import { answer } from './answer.js';
import { forward, type ForwardJob } from './exchange.js';
import { listOwnConversations, requireOwner } from './conversations.js';
import { recordFeedback } from './feedback.js';
import { limitRequest, openStreamSlot } from './limits.js';
import { isAgentAllowed, isAgentVersionAllowed, isAllowed } from '../sessions/policy.js';
import { rateGuardedBody } from './body-rate.js';
import { checkContentType, checkDeclaredLength, parseJsonObject, readCapped } from './request-body.js';
import { checkOcrDocument } from '../uploads/upload.js';
import { checkAttachments } from '../uploads/attachments.js';
import type { RelayRoute } from './route-table.js';
import type { RelayEnv } from './client-address.js';
import type { RelayRuntime, RequestState } from '../runtime.js';
import type { SessionClaims } from '../sessions/session-tokens.js';

/** Answers a request whose path (below the base path) starts with `/v1/`. */
export async function handlePlatformRequest(runtime: RelayRuntime, state: RequestState, path: string): Promise<Response> {
  const { request } = state;
  if (request.method === 'OPTIONS') {
    state.route = 'preflight';
    const methods = runtime.routes.methodsFor(path);
    if (!methods.length) throw noRoute();
    return preflightResponse(state.origin, state.originAllowed, methods);
  }
  const match = runtime.routes.match(request.method, path);
  if (match.kind === 'none') throw noRoute();
  if (match.kind === 'wrong-method') throw methodNotAllowed(match.allow);
  const { route, params } = match;
  state.route = route.name;
  // Only with the `feedback` option; without it the route is as unknown as any other path.
  if (route.special === 'feedback' && !runtime.feedback) throw noRoute();

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
    if (route.special === 'feedback') return recordFeedback(runtime, state, conversationId!, json);
    checkBody(route, json, claims);
    if (route.scope === 'conversations') checkTools(json);
    if (route.upload === 'ocr-document') checkOcrDocument(json, runtime);
    else if (route.upload === 'attachments' && bytes.length - checkAttachments(json, runtime.attachments, runtime) > runtime.conversationTextBytes) {
      // The cap leaves room for attachments; the rest of the body (text, history, tools) keeps its own.
      throw payloadTooLarge(runtime.conversationTextBytes);
    }
  }
  // An upload holds a slot whatever it asks for: the platform streams a transcription when the form's
  // `stream` field says so (not by Accept), and an upload is a long request either way.
  const wantsStream = (route.streamFromBody && json?.stream === true) || route.body?.kind === 'multipart';
  const slot = wantsStream ? await openStreamSlot(runtime.store, claims.sid, claims.limits.concurrentStreams, runtime.report) : null;
  const job: ForwardJob = { runtime, state, route, params, claims, body: bytes, slot };
  try {
    const { response, exchange } = await forward(job);
    return await answer(job, response, exchange);
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
