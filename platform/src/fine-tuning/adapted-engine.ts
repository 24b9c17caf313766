/**
 * The chat engine of a fine-tuned model: the base model's engine plus the job's example memory. When the
 * last user message is close to a trained prompt, the trained reply is streamed (token by token, honouring
 * `max_tokens` and `stop`); otherwise (and for tool results, forced tool calls or JSON modes, which a plain
 * reply cannot satisfy) the turn is the base model's.
 */
import type { ModelCard } from 'parley-kit/types';
import { contentText } from 'parley-kit/wire';
import { countPromptTokens, tokenize } from '../engines/text/tokenizer.js';
import type { ChatEngine, ChatEngineEvent, ChatTurnRequest } from '../engines/chat/types.js';
import type { ExampleMemory } from './example-memory.js';

/** The text of the last user message of a turn, or null when the turn does not end on one. */
function lastUserText(request: ChatTurnRequest): string | null {
  const last = request.history.at(-1);
  if (!last || last.type !== 'message.input' || last.role !== 'user') return null;
  return contentText(last.content);
}

/** `text` cut before the first stop sequence. */
function cutAtStop(text: string, stop: string | string[] | null | undefined): string {
  let end = text.length;
  for (const s of typeof stop === 'string' ? [stop] : stop ?? []) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

/** A chat engine serving one fine-tuned model over its base model's engine. */
export function adaptedChatEngine(card: ModelCard, base: { engine: ChatEngine; model: string }, memory: ExampleMemory): ChatEngine {
  return {
    models: () => [card],
    async *run(request): AsyncIterable<ChatEngineEvent> {
      const args = request.completionArgs;
      const prompt = lastUserText(request);
      const plainText = !args.response_format || args.response_format.type === 'text';
      const forcedTool = args.tool_choice === 'any' || args.tool_choice === 'required';
      const reply = prompt !== null && plainText && !forcedTool ? memory.answer(prompt) : undefined;
      if (reply === undefined) {
        yield* base.engine.run({ ...request, model: base.model });
        return;
      }
      let tokens = tokenize(cutAtStop(reply, args.stop));
      if (typeof args.max_tokens === 'number') tokens = tokens.slice(0, args.max_tokens);
      for (const delta of tokens) {
        request.signal.throwIfAborted();
        yield { kind: 'text', delta };
      }
      yield { kind: 'usage', promptTokens: countPromptTokens(request.instructions, request.history), completionTokens: tokens.length };
    },
  };
}
