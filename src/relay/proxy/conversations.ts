/**
 * Conversation ownership. A conversation belongs to the session that created it; the relay learns
 * the id from the upstream answer (JSON `conversation_id`, or the first SSE event
 * `conversation.response.started`) and keeps it in the state store. Other sessions get the same
 * 404 as for a conversation that does not exist. Listing answers only the session's own
 * conversations, fetched one by one from the upstream.
 */
import type { Conversation } from '../../client/types.js';
import { badRequest, conversationNotFound, upstreamError } from '../errors.js';
import { callUpstream, readUpstreamText, withKey } from './forward.js';
import { isValidParam } from './route-table.js';
import type { RelayRuntime, RequestState } from '../runtime.js';

/** Throws the not-found answer unless `sessionId` owns the conversation. */
export async function requireOwner(runtime: RelayRuntime, conversationId: string, sessionId: string): Promise<void> {
  if ((await runtime.store.getConversationOwner(conversationId)) !== sessionId) throw conversationNotFound(conversationId);
}

/** Records a conversation created by `sessionId`. */
export async function recordOwner(runtime: RelayRuntime, conversationId: unknown, sessionId: string): Promise<void> {
  if (typeof conversationId !== 'string' || !isValidParam('conversation_id', conversationId)) return;
  await runtime.store.setConversationOwner(conversationId, sessionId, runtime.ownershipTtlSeconds);
}

/** The `conversation_id` of a JSON turn answer, if any. */
export function conversationIdOfJson(text: string): unknown {
  try {
    return (JSON.parse(text) as { conversation_id?: unknown }).conversation_id;
  } catch {
    return undefined;
  }
}

/** The `conversation_id` of a `conversation.response.started` SSE event, if it is one. */
export function conversationIdOfEvent(event: { event?: string; data: string }): unknown {
  try {
    const data = JSON.parse(event.data) as { type?: unknown; conversation_id?: unknown };
    return (event.event ?? data.type) === 'conversation.response.started' ? data.conversation_id : undefined;
  } catch {
    return undefined;
  }
}

const MAX_PAGE_SIZE = 100;
const PARALLEL_READS = 8;

/**
 * `GET /v1/conversations` for a session: its own conversations, newest first, paged with `page`
 * and `page_size` and filtered by `metadata` (a JSON object every listed conversation's metadata
 * contains). Conversations the upstream no longer knows are forgotten.
 */
export async function listOwnConversations(runtime: RelayRuntime, state: RequestState, sessionId: string): Promise<Response> {
  const query = state.url.searchParams;
  const page = intParam(query.get('page'), 0, 0, 1_000_000, 'page');
  const pageSize = intParam(query.get('page_size'), 100, 1, MAX_PAGE_SIZE, 'page_size');
  const metadata = metadataParam(query.get('metadata'));

  const owned = await runtime.store.listConversations(sessionId);
  // Without a filter only the requested page is read; with one, everything owned is read, then paged.
  const candidates = metadata ? owned : owned.slice(page * pageSize, (page + 1) * pageSize);
  const records = await readAll(runtime, state, candidates);
  let list = records.filter((r): r is Conversation => r !== null);
  if (metadata) list = list.filter((r) => contains(r.metadata ?? {}, metadata)).slice(page * pageSize, (page + 1) * pageSize);
  return new Response(JSON.stringify(list), { status: 200, headers: { 'content-type': 'application/json' } });
}

async function readAll(runtime: RelayRuntime, state: RequestState, ids: string[]): Promise<Array<Conversation | null>> {
  const out: Array<Conversation | null> = new Array(ids.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      out[index] = await readOne(runtime, state, ids[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, ids.length) }, worker));
  return out;
}

async function readOne(runtime: RelayRuntime, state: RequestState, id: string): Promise<Conversation | null> {
  const url = new URL(runtime.upstream.baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/conversations/${encodeURIComponent(id)}`;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  state.request.signal.addEventListener('abort', onAbort, { once: true });
  const started = performance.now();
  try {
    const headers = withKey(new Headers({ accept: 'application/json' }), runtime.upstream.apiKey);
    const response = await callUpstream({
      build: () => new Request(url, { method: 'GET', headers, signal: controller.signal, redirect: 'manual' }),
      retryable: true,
      controller,
      fetch: runtime.upstream.fetch,
      timeoutMs: runtime.upstreamTimeoutMs,
      retryDelayMs: runtime.retryDelayMs,
    });
    const text = await readUpstreamText(response, runtime.upstream.apiKey);
    if (response.status === 404) {
      await runtime.store.forgetConversation(id);
      return null;
    }
    if (response.status !== 200) throw upstreamError(502, 'The platform could not list conversations');
    return JSON.parse(text) as Conversation;
  } finally {
    state.upstreamMs += performance.now() - started;
    state.request.signal.removeEventListener('abort', onAbort);
  }
}

function intParam(value: string | null, fallback: number, min: number, max: number, name: string): number {
  if (value === null || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min) throw badRequest(`Query parameter ${name} must be an integer ≥ ${min}`);
  return Math.min(Number(value), max);
}

function metadataParam(value: string | null): Record<string, unknown> | null {
  if (!value) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return Object.keys(parsed).length ? parsed as Record<string, unknown> : null;
  } catch { /* fall through */ }
  throw badRequest('Query parameter metadata must be a JSON object');
}

/** JSON containment (as the platform's `metadata` filter): every key of `filter` is contained in `value`. */
function contains(value: unknown, filter: unknown): boolean {
  if (filter === null || typeof filter !== 'object') return value === filter;
  if (Array.isArray(filter)) return Array.isArray(value) && filter.every((f) => value.some((v) => contains(v, f)));
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(filter).every(([k, f]) => contains((value as Record<string, unknown>)[k], f));
}
