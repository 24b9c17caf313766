/**
 * A chat engine that forwards turns to any OpenAI-compatible chat-completions server (Ollama,
 * llama.cpp server, vLLM, …) with `stream: true`, and turns its SSE chunks into engine events.
 */
import { modelCard } from '../model-card.js';
import { createParser } from 'eventsource-parser';
import type { ConversationEntry, ModelCard, ResponseFormat } from 'parley-kit/types';
import { contentText } from 'parley-kit/wire';
import { countTokens } from '../text/tokenizer.js';
import type { ChatEngine, ChatEngineEvent, ChatTurnRequest, HandoffTarget } from './types.js';

export interface OpenAICompatibleChatEngineOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:11434/v1`; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Model name sent upstream and used as the model card id (default `local-openai-compatible`). */
  model?: string;
  /** Other names the card answers to (default none). */
  aliases?: string[];
  /** `max_context_length` of the card (default 32768; the engine does not enforce it). */
  maxContextLength?: number;
  /** fetch implementation (default the global one). */
  fetch?: typeof fetch;
}

/** Default model name when none is configured. */
export const OPENAI_COMPATIBLE_DEFAULT_MODEL = 'local-openai-compatible';

/** The upstream server answered with a non-2xx status. */
export class UpstreamHttpError extends Error {
  constructor(readonly status: number, readonly body: string, url: string) {
    super(`OpenAI-compatible server at ${url} answered HTTP ${status}${body ? `: ${body.slice(0, 2000)}` : ''}`);
    this.name = 'UpstreamHttpError';
  }
}

// ---------------------------------------------------------------- request mapping

interface OpenAIToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }
export type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };
interface OpenAITool { type: 'function'; function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean } }

/** Conversation history (plus instructions) as OpenAI chat messages. */
export function toOpenAIMessages(instructions: string | null, history: readonly ConversationEntry[]): OpenAIMessage[] {
  const messages: OpenAIMessage[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  for (const entry of history) {
    switch (entry.type) {
      case 'message.input':
        messages.push(entry.role === 'user' ? { role: 'user', content: contentText(entry.content) } : { role: 'assistant', content: contentText(entry.content) });
        break;
      case 'message.output':
        messages.push({ role: 'assistant', content: contentText(entry.content) });
        break;
      case 'function.call': {
        const call: OpenAIToolCall = {
          id: entry.tool_call_id,
          type: 'function',
          function: { name: entry.name, arguments: typeof entry.arguments === 'string' ? entry.arguments : JSON.stringify(entry.arguments) },
        };
        const last = messages[messages.length - 1];
        // calls of one turn (and text right before them) belong to one assistant message
        if (last && last.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
        break;
      }
      case 'function.result':
        messages.push({ role: 'tool', tool_call_id: entry.tool_call_id, content: entry.result });
        break;
      default:
        // tool.execution (built-in tools) and agent.handoff have no OpenAI counterpart
        break;
    }
  }
  return messages;
}

function sanitise(name: string): string {
  return name.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

/** `transfer_to_<name>` function names for handoff targets (sanitised, unique, at most 64 characters). */
export function handoffFunctionNames(targets: readonly HandoffTarget[], taken: Iterable<string> = []): Map<string, HandoffTarget> {
  const used = new Set(taken);
  const out = new Map<string, HandoffTarget>();
  for (const target of targets) {
    const base = `transfer_to_${(sanitise(target.name) || sanitise(target.id) || 'agent').slice(0, 52)}`;
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
    used.add(name);
    out.set(name, target);
  }
  return out;
}

function toResponseFormat(format: ResponseFormat | null | undefined): Record<string, unknown> | undefined {
  if (!format || !format.type || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema' && format.json_schema) {
    const js = format.json_schema;
    return {
      type: 'json_schema',
      json_schema: {
        name: js.name,
        schema: js.schema,
        ...(js.description ? { description: js.description } : {}),
        ...(js.strict !== undefined ? { strict: js.strict } : {}),
      },
    };
  }
  return { type: 'json_object' };
}

/** The body sent upstream for a turn, and the handoff function names it exposes. */
export function buildChatCompletionBody(request: ChatTurnRequest, model: string): { body: Record<string, unknown>; handoffNames: Map<string, HandoffTarget> } {
  const functionTools = request.tools.flatMap((t) => (t.type === 'function' ? [t.function] : []));
  const targets = request.handoffs.filter((h) => h.id !== request.agent?.id);
  const handoffNames = handoffFunctionNames(targets, functionTools.map((f) => f.name));
  const tools: OpenAITool[] = [
    ...functionTools.map((f): OpenAITool => ({
      type: 'function',
      function: {
        name: f.name,
        ...(f.description ? { description: f.description } : {}),
        parameters: f.parameters && Object.keys(f.parameters).length ? f.parameters : { type: 'object', properties: {} },
        ...(f.strict ? { strict: true } : {}),
      },
    })),
    ...[...handoffNames].map(([name, target]): OpenAITool => ({
      type: 'function',
      function: {
        name,
        description: `Hand the conversation over to the agent "${target.name}"${target.description ? `: ${target.description}` : ''}.`,
        parameters: { type: 'object', properties: {} },
      },
    })),
  ];
  const args = request.completionArgs ?? {};
  const body: Record<string, unknown> = {
    model,
    messages: toOpenAIMessages(request.instructions, request.history),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (tools.length) {
    body.tools = tools;
    const choice = args.tool_choice ?? 'auto';
    body.tool_choice = choice === 'any' || choice === 'required' ? 'required' : choice;
  }
  if (args.temperature != null) body.temperature = args.temperature;
  if (args.top_p != null) body.top_p = args.top_p;
  if (args.max_tokens != null) body.max_tokens = args.max_tokens;
  if (args.stop != null && (typeof args.stop === 'string' ? args.stop : args.stop.length)) body.stop = args.stop;
  if (args.random_seed != null) body.seed = args.random_seed;
  if (args.presence_penalty != null) body.presence_penalty = args.presence_penalty;
  if (args.frequency_penalty != null) body.frequency_penalty = args.frequency_penalty;
  const rf = toResponseFormat(args.response_format);
  if (rf) body.response_format = rf;
  return { body, handoffNames };
}

// ---------------------------------------------------------------- streaming

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomToolCallId(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (const b of bytes) out += ALPHANUM[b % ALPHANUM.length];
  return out;
}

interface ChunkToolCall { index?: number; id?: string | null; type?: string; function?: { name?: string | null; arguments?: string | null } }
interface Chunk {
  choices?: Array<{ index?: number; delta?: { content?: string | null; tool_calls?: ChunkToolCall[] | null }; finish_reason?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string } | string;
}

interface CallState { id: string; name: string; pending: string; emitted: boolean }

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * Create an engine that forwards each turn to `${baseUrl}/chat/completions` (streamed). History maps
 * to OpenAI messages (instructions → system, user/assistant text, function calls → assistant
 * `tool_calls`, results → `tool` messages); function tools are forwarded and each handoff target is
 * offered as a `transfer_to_<name>` function whose call becomes a `handoff` event. Completion args map
 * to `temperature`, `top_p`, `max_tokens`, `stop`, `seed`, penalties and `response_format`.
 * Non-2xx answers throw {@link UpstreamHttpError}; a stream that breaks off throws; `signal` aborts the
 * upstream request. Usage comes from the server's final chunk, or is estimated with `countTokens`.
 */
export function createOpenAICompatibleChatEngine(options: OpenAICompatibleChatEngineOptions): ChatEngine {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const url = `${baseUrl}/chat/completions`;
  const model = options.model || OPENAI_COMPATIBLE_DEFAULT_MODEL;
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const created = Math.floor(Date.now() / 1000);

  const card: ModelCard = modelCard({
    id: model,
    created,
    ownedBy: 'openai-compatible',
    capabilities: { completion_chat: true, function_calling: true },
    name: model,
    description: `Forwards chat turns to the OpenAI-compatible server at ${baseUrl} (model "${model}").`,
    maxContextLength: options.maxContextLength,
    aliases: [...(options.aliases ?? [])],
  });

  async function* run(request: ChatTurnRequest): AsyncGenerator<ChatEngineEvent> {
    const { signal } = request;
    if (signal.aborted) throw abortReason(signal);
    const { body, handoffNames } = buildChatCompletionBody(request, model);

    // our own controller, so that leaving early (handoff, consumer stops) also cancels the upstream request
    const upstream = new AbortController();
    const onAbort = (): void => upstream.abort(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    let completed = false;
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      let response: Response;
      try {
        response = await doFetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: upstream.signal });
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw new Error(`Could not reach the OpenAI-compatible server at ${url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      if (!response.ok) {
        let text = '';
        try {
          text = await response.text();
        } catch {
          /* the status is what matters */
        }
        throw new UpstreamHttpError(response.status, text.trim(), url);
      }
      if (!response.body) throw new Error(`The OpenAI-compatible server at ${url} sent no response body`);

      const queue: Chunk[] = [];
      let done = false;
      let parseError: Error | null = null;
      const parser = createParser({
        onEvent(event) {
          if (done || parseError) return;
          const data = event.data.trim();
          if (data === '[DONE]') {
            done = true;
            return;
          }
          if (!data) return;
          try {
            queue.push(JSON.parse(data) as Chunk);
          } catch {
            parseError = new Error(`The OpenAI-compatible server at ${url} sent a malformed stream chunk: ${data.slice(0, 200)}`);
          }
        },
      });

      const calls = new Map<number, CallState>();
      let text = '';
      let argumentsText = '';
      let finished = false;
      let usage: { prompt: number; completion: number } | null = null;

      // A server that ignores `stream: true` answers with one JSON completion: treat it as a single chunk.
      const contentType = response.headers.get('content-type') ?? '';
      const whole = contentType.includes('application/json') ? await readCompletion(response, url) : null;
      if (whole) {
        queue.push(whole);
        done = true;
      } else {
        reader = response.body.getReader();
      }
      const decoder = new TextDecoder();
      for (;;) {
        let ended = done;
        if (reader) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (err) {
            if (signal.aborted) throw abortReason(signal);
            throw new Error(`The stream from the OpenAI-compatible server at ${url} broke off: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
          }
          if (chunk.done) {
            parser.feed(decoder.decode());
            parser.reset({ consume: true });
            ended = true;
          } else {
            parser.feed(decoder.decode(chunk.value, { stream: true }));
          }
          if (parseError) throw parseError;
          ended ||= done;
        }

        while (queue.length) {
          const data = queue.shift()!;
          if (data.error) {
            const message = typeof data.error === 'string' ? data.error : data.error.message ?? JSON.stringify(data.error);
            throw new Error(`The OpenAI-compatible server at ${url} reported an error: ${message}`);
          }
          if (data.usage && typeof data.usage.prompt_tokens === 'number') {
            usage = { prompt: data.usage.prompt_tokens, completion: data.usage.completion_tokens ?? 0 };
          }
          for (const choice of data.choices ?? []) {
            if ((choice.index ?? 0) !== 0) continue;
            if (choice.finish_reason) finished = true;
            const delta = choice.delta ?? {};
            if (typeof delta.content === 'string' && delta.content) {
              text += delta.content;
              yield { kind: 'text', delta: delta.content };
            }
            const toolCalls = delta.tool_calls ?? [];
            for (let position = 0; position < toolCalls.length; position++) {
              const tc = toolCalls[position];
              const index = typeof tc.index === 'number' ? tc.index : position;
              let state = calls.get(index);
              if (!state) {
                state = { id: '', name: '', pending: '', emitted: false };
                calls.set(index, state);
              }
              if (!state.id && tc.id) state.id = tc.id;
              if (!state.name && tc.function?.name) state.name = tc.function.name;
              if (tc.function?.arguments) state.pending += tc.function.arguments;
              if (!state.name) continue; // arguments before the name: keep them until it arrives
              const target = handoffNames.get(state.name);
              if (target) {
                completed = true;
                yield { kind: 'handoff', agentId: target.id };
                return;
              }
              if (!state.id) state.id = randomToolCallId();
              if (!state.emitted || state.pending) {
                state.emitted = true;
                const piece = state.pending;
                state.pending = '';
                argumentsText += piece;
                yield { kind: 'function_call', toolCallId: state.id, name: state.name, argumentsDelta: piece };
              }
            }
          }
        }
        if (ended) break;
      }
      if (!done && !finished) {
        throw new Error(`The stream from the OpenAI-compatible server at ${url} ended before the reply was complete`);
      }
      completed = true;
      yield {
        kind: 'usage',
        promptTokens: usage?.prompt ?? estimatePromptTokens(body),
        completionTokens: usage?.completion ?? countTokens(text) + countTokens(argumentsText),
      };
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!completed) upstream.abort(signal.aborted ? abortReason(signal) : new DOMException('The turn ended early.', 'AbortError'));
      if (reader) reader.cancel().catch(() => undefined);
    }
  }

  return {
    models: () => [structuredClone(card)],
    run,
  };
}

/** A non-streamed chat completion, as one stream chunk. */
async function readCompletion(response: Response, url: string): Promise<Chunk> {
  const raw = await response.text();
  let parsed: {
    choices?: Array<{ index?: number; message?: { content?: string | null; tool_calls?: ChunkToolCall[] | null }; finish_reason?: string | null }>;
    usage?: Chunk['usage'];
    error?: Chunk['error'];
  };
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`The OpenAI-compatible server at ${url} sent a malformed completion: ${raw.slice(0, 200)}`);
  }
  return {
    ...(parsed.error ? { error: parsed.error } : {}),
    usage: parsed.usage ?? null,
    choices: (parsed.choices ?? []).map((c) => ({
      index: c.index ?? 0,
      delta: { content: c.message?.content ?? null, tool_calls: (c.message?.tool_calls ?? []).map((tc, i) => ({ index: i, ...tc })) },
      finish_reason: c.finish_reason ?? 'stop',
    })),
  };
}

function estimatePromptTokens(body: Record<string, unknown>): number {
  let n = 0;
  for (const m of body.messages as OpenAIMessage[]) {
    if (typeof m.content === 'string') n += countTokens(m.content);
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) n += countTokens(`${c.function.name} ${c.function.arguments}`);
  }
  return n;
}
