/**
 * `POST {base}/v1/conversations/{conversation_id}/feedback` (only with the relay's `feedback` option): a
 * visitor's rating of a reply, written as a record of the site owner's observability dataset on the platform
 * (`POST /v1/observability/datasets/{dataset_id}/records`), which the platform's judge can then evaluate.
 *
 * Body `{message_id, rating: 'up' | 'down', comment?}`. The route is `owned`: a session rates only its own
 * conversations (another session's, like an unknown one, is 404 before anything is read). The relay reads
 * the conversation's messages from the platform itself, so the record holds what was really said, never
 * what the page claims: `payload.messages` is the conversation up to and including the rated reply
 * (`{role, content}` each, as the platform's playground import writes them), `properties` the rating, the
 * comment, the conversation and message ids, and `source: 'parley-relay'`. Answers 204.
 */
import * as v from 'valibot';
import { badRequest, conversationNotFound, notFound, upstreamError } from '../errors.js';
import { callUpstream, readUpstreamText, withKey } from './forward.js';
import type { RelayRuntime, RequestState } from '../runtime.js';

/** Longest comment taken, in characters. */
export const MAX_FEEDBACK_COMMENT = 2000;

const FeedbackBody = v.strictObject({
  message_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/)),
  rating: v.picklist(['up', 'down']),
  comment: v.optional(v.pipe(v.string(), v.maxLength(MAX_FEEDBACK_COMMENT))),
});

/** Whether a dataset id is one the relay can put in a path. */
export function isDatasetId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id);
}

interface Message { id?: unknown; role?: unknown; content?: unknown }

/** Answers the feedback route for an owned conversation (ownership is checked before, in proxy.ts). */
export async function recordFeedback(runtime: RelayRuntime, state: RequestState, conversationId: string, body: Record<string, unknown>): Promise<Response> {
  const datasetId = runtime.feedback!.datasetId;
  const parsed = v.safeParse(FeedbackBody, body);
  if (!parsed.success) {
    throw badRequest(`Feedback must be {message_id, rating: 'up' | 'down', comment?} (a comment of at most ${MAX_FEEDBACK_COMMENT} characters, no other fields)`);
  }
  const { message_id: messageId, rating } = parsed.output;
  const comment = parsed.output.comment?.trim() ?? '';

  const read = await upstream(runtime, state, 'GET', `/v1/conversations/${encodeURIComponent(conversationId)}/messages`);
  if (read.status === 404) throw conversationNotFound(conversationId);
  if (read.status !== 200) throw upstreamError(502, 'The platform could not read the conversation');
  let messages: Message[];
  try {
    const list = (JSON.parse(read.text) as { messages?: unknown }).messages;
    messages = Array.isArray(list) ? list as Message[] : [];
  } catch {
    throw upstreamError(502, 'The platform could not read the conversation');
  }
  const rated = messages.findIndex((m) => m?.id === messageId);
  if (rated < 0) throw notFound(`Message '${messageId}' not found in conversation '${conversationId}'`);
  if (messages[rated]!.role !== 'assistant') throw badRequest(`Message '${messageId}' is not a reply`);

  const record = {
    payload: { messages: messages.slice(0, rated + 1).map((m) => ({ role: m.role, content: m.content })) },
    properties: {
      rating, ...(comment ? { comment } : {}), conversation_id: conversationId, message_id: messageId, source: 'parley-relay',
      rated_at: new Date(runtime.now()).toISOString(),
    },
  };
  const written = await upstream(runtime, state, 'POST', `/v1/observability/datasets/${encodeURIComponent(datasetId)}/records`, record);
  if (written.status !== 201 && written.status !== 200) {
    runtime.report(new Error(`feedback: the platform answered ${written.status} to the record of dataset ${datasetId}`));
    throw upstreamError(502, 'The platform did not record the feedback');
  }
  return new Response(null, { status: 204 });
}

/** One call to the platform with the relay's key; the answer's status and text (the key scrubbed). */
async function upstream(runtime: RelayRuntime, state: RequestState, method: 'GET' | 'POST', path: string, json?: unknown): Promise<{ status: number; text: string }> {
  const url = new URL(runtime.upstream.baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  state.request.signal.addEventListener('abort', onAbort, { once: true });
  const started = performance.now();
  try {
    const headers = withKey(new Headers({ accept: 'application/json', ...(json ? { 'content-type': 'application/json' } : {}) }), runtime.upstream.apiKey);
    const body = json ? JSON.stringify(json) : undefined;
    const response = await callUpstream({
      build: () => new Request(url, { method, headers, body, signal: controller.signal, redirect: 'manual' }),
      // Reading may be tried again; writing a record twice would count a rating twice.
      retryable: method === 'GET',
      controller,
      fetch: runtime.upstream.fetch,
      timeoutMs: runtime.upstreamTimeoutMs,
      retryDelayMs: runtime.retryDelayMs,
    });
    return { status: response.status, text: await readUpstreamText(response, runtime.upstream.apiKey) };
  } finally {
    state.upstreamMs += performance.now() - started;
    state.request.signal.removeEventListener('abort', onAbort);
  }
}
