/**
 * Records a completion event for each completion the platform serves, without ever failing the
 * completion: a write that fails is reported (console.error by default) and the answer goes out anyway.
 *
 * - Chat, agent and FIM completions: from the request body and the JSON answer, or, when streamed, from
 *   the `data:` chunks as they pass through to the caller (recorded when the stream ends or is cancelled).
 * - Conversation turns: from the turn's history (request messages) and outputs (response messages).
 */
import type { Context } from 'hono';
import type { ConversationEntry, ConversationUsage, OutputEntry, Tool } from 'parley-kit/types';
import { callerOf } from '../http/caller.js';
import type { Caller } from '../http/caller.js';
import type { Db } from '../store/db.js';
import { CompletionEventStore, type EventMessage, type NewCompletionEvent } from './events.js';

/** The request of a chat, agent or FIM completion, as the route parsed it. */
export interface CompletionRequest {
  messages?: unknown[];
  prompt?: string;
  suffix?: string | null;
  agent_id?: string;
  tools?: unknown[] | null;
}

/** Who spoke a conversation turn, as its event records it: the agent (null for a bare model), its model, instructions and tools. */
export interface TurnSpeaker { agentId: string | null; model: string; instructions: string | null | undefined; tools: Tool[] }

interface ChoiceSummary { message: EventMessage; finishReason: string | null }

const asMessages = (list: unknown[] | undefined): EventMessage[] =>
  (list ?? []).filter((m): m is EventMessage => typeof m === 'object' && m !== null && !Array.isArray(m));

/** Conversation entries as chat-completion messages (handoffs carry no message and are left out). */
export function entriesToMessages(entries: readonly ConversationEntry[]): EventMessage[] {
  const out: EventMessage[] = [];
  for (const e of entries) {
    switch (e.type) {
      case 'message.input':
        out.push({ role: e.role, content: e.content });
        break;
      case 'message.output':
        out.push({ role: 'assistant', content: e.content });
        break;
      case 'function.call':
        out.push({ role: 'assistant', content: '', tool_calls: [{ id: e.tool_call_id, type: 'function', function: { name: e.name, arguments: e.arguments } }] });
        break;
      case 'function.result':
        out.push({ role: 'tool', tool_call_id: e.tool_call_id, content: e.result });
        break;
      case 'tool.execution':
        out.push({ role: 'assistant', content: '', tool_calls: [{ id: e.id, type: 'function', function: { name: e.name, arguments: e.arguments } }] });
        break;
      default:
        break;
    }
  }
  return out;
}

export class CompletionRecorder {
  readonly store: CompletionEventStore;

  constructor(db: Db, private readonly report: (error: unknown) => void = (e) => console.error('[parley platform] completion event not recorded:', e)) {
    this.store = new CompletionEventStore(db);
  }

  /** Writes the event; a failure is reported, never thrown. */
  async record(input: NewCompletionEvent): Promise<void> {
    try {
      await this.store.record(input);
    } catch (err) {
      this.report(err);
    }
  }

  private base(c: Context, request: CompletionRequest, model: string, stream: boolean) {
    const caller = callerOf(c);
    const requestMessages = request.messages ? asMessages(request.messages) : [{ role: 'user', content: request.prompt ?? '' }];
    return {
      workspaceId: caller.workspaceId, userId: caller.userId, endpoint: new URL(c.req.url).pathname, model, stream,
      agentId: request.agent_id ?? null, conversationId: null, tools: request.tools ?? [], requestMessages,
    };
  }

  /** A completion answered as JSON (`chat.completion` body). */
  async completion(c: Context, request: CompletionRequest, model: string, body: { id: string; choices: Array<{ message: object; finish_reason: string | null }>; usage: { prompt_tokens: number; completion_tokens: number } }): Promise<void> {
    try {
      await this.record({
        ...this.base(c, request, model, false),
        correlationId: body.id,
        finishReason: body.choices[0]?.finish_reason ?? null,
        responseMessages: body.choices.map((ch) => ({ ...ch.message })),
        promptTokens: body.usage.prompt_tokens,
        completionTokens: body.usage.completion_tokens,
      });
    } catch (err) {
      this.report(err);
    }
  }

  /** A streamed completion: answers the same stream, and records the event from its chunks when it ends. */
  stream(c: Context, request: CompletionRequest, model: string, response: Response): Response {
    if (!response.body) return response;
    let base: ReturnType<CompletionRecorder['base']>;
    try {
      base = this.base(c, request, model, true);
    } catch (err) {
      this.report(err);
      return response;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const choices = new Map<number, ChoiceSummary>();
    let id = '';
    let usage = { prompt_tokens: 0, completion_tokens: 0 };
    let pending = '';
    let finished = false;
    const read = (block: string) => {
      for (const line of block.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') continue;
        const chunk = JSON.parse(data) as { id?: string; usage?: typeof usage; choices?: Array<{ index: number; delta: Record<string, unknown>; finish_reason: string | null }> };
        if (chunk.id) id = chunk.id;
        if (chunk.usage) usage = chunk.usage;
        for (const ch of chunk.choices ?? []) {
          const summary = choices.get(ch.index) ?? { message: { role: 'assistant', content: '' }, finishReason: null };
          choices.set(ch.index, summary);
          if (typeof ch.delta.content === 'string') summary.message.content = `${summary.message.content as string}${ch.delta.content}`;
          if (ch.delta.tool_calls) summary.message.tool_calls = ch.delta.tool_calls;
          if (ch.finish_reason) summary.finishReason = ch.finish_reason;
        }
      }
    };
    const feed = (bytes: Uint8Array | undefined) => {
      try {
        pending += bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
        const blocks = pending.split('\n\n');
        pending = blocks.pop() ?? '';
        blocks.forEach(read);
      } catch (err) {
        this.report(err);
      }
    };
    const finish = async () => {
      if (finished) return;
      finished = true;
      feed(undefined);
      const ordered = [...choices.entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
      await this.record({
        ...base,
        correlationId: id,
        finishReason: ordered[0]?.finishReason ?? null,
        responseMessages: ordered.map((s) => s.message),
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
      });
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await reader.read();
        if (next.done) {
          await finish();
          controller.close();
          return;
        }
        feed(next.value);
        controller.enqueue(next.value);
      },
      async cancel(reason) {
        await reader.cancel(reason);
        await finish();
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** A conversation turn (start, append or restart; streamed or not). */
  async turn(input: {
    caller: Caller; conversationId: string; speaker: TurnSpeaker; history: readonly ConversationEntry[]; outputs: readonly OutputEntry[];
    usage: ConversationUsage; stream: boolean; error?: { message: string } | undefined;
  }): Promise<void> {
    try {
      const { speaker } = input;
      const { instructions, tools } = speaker;
      const requestMessages = [...(instructions ? [{ role: 'system', content: instructions }] : []), ...entriesToMessages(input.history)];
      await this.record({
        workspaceId: input.caller.workspaceId,
        userId: input.caller.userId,
        correlationId: input.conversationId,
        endpoint: '/v1/conversations',
        model: speaker.model,
        agentId: speaker.agentId,
        conversationId: input.conversationId,
        stream: input.stream,
        finishReason: input.error ? 'error' : input.outputs.some((o) => o.type === 'function.call') ? 'tool_calls' : 'stop',
        tools,
        requestMessages,
        responseMessages: entriesToMessages(input.outputs as ConversationEntry[]),
        promptTokens: input.usage.prompt_tokens,
        completionTokens: input.usage.completion_tokens,
      });
    } catch (err) {
      this.report(err);
    }
  }
}
