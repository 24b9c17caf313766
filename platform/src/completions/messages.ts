/**
 * The adapter between the stateless chat-completion wire format and the chat engines, which speak
 * conversation entries: chat messages become `instructions` + a `history` of entries (system → instructions,
 * user → `message.input`, assistant → `message.output` and `function.call`, tool → `function.result`), and
 * what an engine yields becomes the assistant message of a completion. The engines stay unchanged.
 */
import type { ConversationEntry, InputContentChunk, Tool } from 'parley-kit/types';
import { contentText } from 'parley-kit/wire';
import { badRequest, invalidField } from '../http/errors.js';
import { isoNow, newId } from '../http/ids.js';
import type { ChatMessage } from './schemas.js';

/** What a chat engine is given for a list of chat messages. */
export interface EngineInput {
  /** System messages (and any preamble such as the safety prompt), joined by blank lines; null when none. */
  instructions: string | null;
  /** Every non-system message as a conversation entry, oldest first (a trailing prefix message excluded). */
  history: ConversationEntry[];
  /** Content of a trailing `assistant` message with `prefix: true`: the answer starts with it. */
  prefix: string;
}

/** A tool call of an assistant message, as the completion APIs return it. */
export interface CompletionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  index: number;
}

/** The assistant message of a completion choice. */
export interface CompletionMessage {
  role: 'assistant';
  content: string;
  tool_calls: CompletionToolCall[] | null;
  prefix: boolean;
}

type Content = Exclude<Extract<ChatMessage, { role: 'user' }>['content'], null>;

/**
 * Chat messages as engine input. `preamble` goes before the system messages (e.g. the safety prompt or an
 * agent's instructions). Message order is checked as the platform does: the last message must be from the
 * user or a tool, or an assistant message with `prefix: true`; a tool message must answer a call made before it.
 */
export function toEngineInput(messages: readonly ChatMessage[], preamble: readonly string[] = []): EngineInput {
  const instructions = [...preamble];
  const history: ConversationEntry[] = [];
  const pendingCalls = new Set<string>();
  let prefix = '';
  const at = isoNow();
  const common = () => ({ object: 'entry' as const, created_at: at, completed_at: at });

  const last = messages.length - 1;
  const final = messages[last];
  if (final.role === 'system' || (final.role === 'assistant' && final.prefix !== true)) {
    throw badRequest(
      `Expected last role user or tool (or assistant with prefix true) for serving, but got ${final.role}`,
      'messages',
    );
  }

  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        instructions.push(contentText(message.content));
        break;
      case 'user':
        history.push({ ...common(), type: 'message.input', id: newId('msg'), role: 'user', content: entryContent(message.content ?? '') });
        break;
      case 'assistant': {
        if (message.prefix) {
          if (index !== last) throw invalidField(['body', 'messages', index, 'prefix'], 'Only the last message may be an assistant prefix', 'value_error', true);
          prefix = contentText(entryContent(message.content ?? ''));
          break;
        }
        const text = message.content ? contentText(entryContent(message.content)) : '';
        if (text) history.push({ ...common(), type: 'message.output', id: newId('msg'), role: 'assistant', content: text, agent_id: null, model: null });
        (message.tool_calls ?? []).forEach((call, callIndex) => {
          const id = call.id && call.id !== 'null' ? call.id : `call_${index}_${callIndex}`;
          const args = typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments);
          pendingCalls.add(id);
          history.push({ ...common(), type: 'function.call', id: newId('fc'), tool_call_id: id, name: call.function.name, arguments: args });
        });
        if (!text && !message.tool_calls?.length) {
          throw invalidField(['body', 'messages', index, 'content'], 'An assistant message needs content or tool_calls', 'value_error', message.content ?? null);
        }
        break;
      }
      case 'tool': {
        const id = message.tool_call_id ?? (pendingCalls.size === 1 ? [...pendingCalls][0] : null);
        if (!id || !pendingCalls.has(id)) {
          throw invalidField(
            ['body', 'messages', index, 'tool_call_id'],
            id ? `No earlier assistant tool call has the id '${id}'` : 'tool_call_id is required when several tool calls are open',
            'value_error',
            message.tool_call_id ?? null,
          );
        }
        pendingCalls.delete(id);
        history.push({ ...common(), type: 'function.result', id: newId('msg'), tool_call_id: id, result: contentText(entryContent(message.content ?? '')) });
        break;
      }
    }
  });
  const joined = instructions.filter((s) => s.trim() !== '').join('\n\n');
  return { instructions: joined || null, history, prefix };
}

/** Message content as entry content (the chunk shapes are the same on both sides). */
function entryContent(content: Content): string | InputContentChunk[] {
  return typeof content === 'string' ? content : (content as InputContentChunk[]);
}

/**
 * The function tools of a request or an agent, and `tool_choice` in the engine's vocabulary: a named
 * function narrows the tools to that one and makes a call required.
 */
export function engineTools(
  tools: readonly Tool[],
  choice: 'auto' | 'none' | 'any' | 'required' | { function: { name: string } } | undefined,
): { tools: Tool[]; toolChoice: 'auto' | 'none' | 'any' | 'required' | undefined } {
  const functions = tools.filter((t) => t.type === 'function');
  if (choice === undefined || typeof choice === 'string') return { tools: functions, toolChoice: choice };
  const named = functions.filter((t) => t.function.name === choice.function.name);
  if (!named.length) {
    throw invalidField(['body', 'tool_choice', 'function', 'name'], `tool_choice names '${choice.function.name}', which is not one of the function tools`, 'value_error', choice.function.name);
  }
  return { tools: named, toolChoice: 'any' };
}

/** Accumulates the function-call pieces an engine yields into whole tool calls, in the order they started. */
export class ToolCallCollector {
  private readonly calls = new Map<string, CompletionToolCall>();

  add(toolCallId: string, name: string, argumentsDelta: string): void {
    const call = this.calls.get(toolCallId);
    if (call) call.function.arguments += argumentsDelta;
    else this.calls.set(toolCallId, { id: toolCallId, type: 'function', function: { name, arguments: argumentsDelta }, index: this.calls.size });
  }

  /** The calls so far; with `parallel` false only the first. */
  list(parallel: boolean): CompletionToolCall[] {
    const all = [...this.calls.values()];
    return parallel ? all : all.slice(0, 1);
  }
}
