/**
 * One choice of a completion: runs a chat engine on the adapted messages and reports text as it comes,
 * then the tool calls, the finish reason and the token counts. `max_tokens` is enforced here rather than
 * trusted to the engine: the engine is asked for one token more, so a reply that really had more to say
 * ends with `length` and a reply that happens to be exactly `max_tokens` long ends with `stop`.
 * The engine is not asked to cite (`cites` unset): a completion's message content is text, without sources.
 */
import type { CompletionArgs, Tool } from 'parley-kit/types';
import { countPromptTokens, countTokens } from '../engines/text/tokenizer.js';
import type { ChatEngine, ReadDocument } from '../engines/chat/types.js';
import { ToolCallCollector, type CompletionToolCall, type EngineInput } from './messages.js';

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface ChoiceRequest {
  engine: ChatEngine;
  /** The model as the caller named it. */
  model: string;
  input: EngineInput;
  /** Function tools only (see `engineTools`). */
  tools: Tool[];
  completionArgs: CompletionArgs;
  /** The attachments in view, read (ocr/attachments.ts), for engines that read them. */
  documents?: ReadDocument[];
  /** The agent answering (agents completions), or null. */
  agent: { id: string; name: string } | null;
  /** False keeps only the first tool call. */
  parallelToolCalls: boolean;
  signal: AbortSignal;
}

/** What a choice reports: text pieces, then exactly one `done`. */
export type ChoiceEvent =
  | { kind: 'text'; delta: string }
  | { kind: 'done'; finishReason: FinishReason; toolCalls: CompletionToolCall[] | null; promptTokens: number; completionTokens: number };

/** Runs one choice; the engine's errors (and aborts) propagate to the caller. */
export async function* runChoice(req: ChoiceRequest): AsyncGenerator<ChoiceEvent> {
  const max = req.completionArgs.max_tokens;
  const limited = typeof max === 'number';
  const completionArgs = limited ? { ...req.completionArgs, max_tokens: max + 1 } : req.completionArgs;
  const calls = new ToolCallCollector();
  let emitted = 0;
  let truncated = false;
  let usage: { promptTokens: number; completionTokens: number } | null = null;

  const events = req.engine.run({
    model: req.model,
    instructions: req.input.instructions,
    history: req.input.history,
    tools: req.tools,
    completionArgs,
    handoffs: [],
    agent: req.agent,
    documents: req.documents,
    signal: req.signal,
  });
  for await (const event of events) {
    if (event.kind === 'text') {
      const tokens = countTokens(event.delta);
      if (limited && emitted + tokens > max) {
        truncated = true;
        break;
      }
      emitted += tokens;
      yield { kind: 'text', delta: event.delta };
    } else if (event.kind === 'function_call') {
      calls.add(event.toolCallId, event.name, event.argumentsDelta);
    } else if (event.kind === 'usage') {
      usage = { promptTokens: event.promptTokens, completionTokens: event.completionTokens };
    }
  }
  const toolCalls = calls.list(req.parallelToolCalls);
  const callTokens = toolCalls.reduce((n, c) => n + countTokens(c.function.arguments), 0);
  yield {
    kind: 'done',
    finishReason: toolCalls.length ? 'tool_calls' : truncated ? 'length' : 'stop',
    toolCalls: toolCalls.length ? toolCalls : null,
    promptTokens: usage?.promptTokens ?? countPromptTokens(req.input.instructions, req.input.history),
    completionTokens: usage && !truncated ? usage.completionTokens : emitted + callTokens,
  };
}
