import type { ConversationEntry, InputContentChunk, Tool } from 'parley-kit/types';
import type { ChatEngine, ChatEngineEvent, ChatTurnRequest, SourceReference } from '../../../src/engines/chat/types.js';

const T = '2025-01-01T00:00:00Z';
let seq = 0;
const nextId = (prefix: string): string => `${prefix}_${(++seq).toString(16).padStart(32, '0')}`;

export function userEntry(content: string | InputContentChunk[]): ConversationEntry {
  return { object: 'entry', type: 'message.input', id: nextId('msg'), created_at: T, role: 'user', content };
}
export function assistantEntry(content: string): ConversationEntry {
  return { object: 'entry', type: 'message.output', id: nextId('msg'), created_at: T, role: 'assistant', content, agent_id: null, model: 'parley-local' };
}
export function callEntry(toolCallId: string, name: string, args: string): ConversationEntry {
  return { object: 'entry', type: 'function.call', id: nextId('fc'), created_at: T, tool_call_id: toolCallId, name, arguments: args };
}
export function resultEntry(toolCallId: string, result: string): ConversationEntry {
  return { object: 'entry', type: 'function.result', id: nextId('msg'), created_at: T, tool_call_id: toolCallId, result };
}
export function handoffEntry(from: { id: string; name: string }, to: { id: string; name: string }): ConversationEntry {
  return {
    object: 'entry', type: 'agent.handoff', id: nextId('handoff'), created_at: T,
    previous_agent_id: from.id, previous_agent_name: from.name, next_agent_id: to.id, next_agent_name: to.name,
  };
}
export function fnTool(name: string, description: string, parameters: Record<string, unknown>): Tool {
  return { type: 'function', function: { name, description, parameters } };
}

export function request(history: ConversationEntry[] | string, extra: Partial<ChatTurnRequest> = {}): ChatTurnRequest {
  return {
    model: 'parley-local',
    instructions: null,
    history: typeof history === 'string' ? [userEntry(history)] : history,
    tools: [],
    completionArgs: {},
    handoffs: [],
    agent: null,
    signal: new AbortController().signal,
    ...extra,
  };
}

export interface Collected {
  events: ChatEngineEvent[];
  text: string;
  textDeltas: string[];
  calls: Array<{ toolCallId: string; name: string; arguments: string; pieces: number }>;
  handoffs: string[];
  /** The sources the turn cited (`reference` events), in order. */
  references: SourceReference[];
  usage: { promptTokens: number; completionTokens: number } | null;
  error: unknown;
}

/** Run a turn to the end (or the error), gathering what it produced. */
export async function collect(engine: ChatEngine, req: ChatTurnRequest, onEvent?: (e: ChatEngineEvent) => void): Promise<Collected> {
  const out: Collected = { events: [], text: '', textDeltas: [], calls: [], handoffs: [], references: [], usage: null, error: undefined };
  try {
    for await (const e of engine.run(req)) {
      out.events.push(e);
      onEvent?.(e);
      if (e.kind === 'text') {
        out.text += e.delta;
        out.textDeltas.push(e.delta);
      } else if (e.kind === 'function_call') {
        let call = out.calls.find((c) => c.toolCallId === e.toolCallId);
        if (!call) {
          call = { toolCallId: e.toolCallId, name: e.name, arguments: '', pieces: 0 };
          out.calls.push(call);
        }
        call.arguments += e.argumentsDelta;
        call.pieces++;
      } else if (e.kind === 'handoff') out.handoffs.push(e.agentId);
      else if (e.kind === 'reference') out.references.push(e.reference);
      else out.usage = { promptTokens: e.promptTokens, completionTokens: e.completionTokens };
    }
  } catch (err) {
    out.error = err;
  }
  return out;
}
