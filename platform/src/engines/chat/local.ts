/**
 * `parley-local`: a deterministic local stand-in for a chat model, for offline development and tests.
 *
 * It is **not** a language model: it understands nothing, uses no randomness and no network. The same
 * request always produces the same output (`completion_args.random_seed` only picks among fixed
 * wordings). It exists so that a chat UI can exercise every path it renders without a real model:
 *
 * | Situation (checked in this order) | What it produces |
 * |---|---|
 * | The history ends with `function.result` entries | Results of `document_library` calls: the passages quoted (see below). Others: a markdown message quoting each result (`The \`get_weather\` tool returned: …`): flat JSON objects as a list, other JSON in a ```json block, plain text as a quote. Always text, even when `tool_choice` is `any`, so tool loops end. |
 * | The last user message is exactly `/fail` (trimmed) | A few text tokens, then the turn throws an `Error` ("parley-local failed on purpose …"). A test hook for mid-stream failures. |
 * | `handoffs` is non-empty and the last user message asks to be transferred / handed (over/off/to) / to speak, talk or chat with / connected, switched, routed, escalated to an agent named in `handoffs` (its name or id, case-insensitive; or words of its description) | One `handoff` event and nothing else. Never to the current agent, and never twice after the same user message (no ping-pong). |
 * | `documents` (attachments the platform read: images through OCR, PDFs through their text layer) and the last user message has attachments (and names no function tool explicitly) | The passages closest to the question, quoted with their page ("Page 1 of your image says: > TOTAL 42.50"), ranked with the embedding engine (reading.ts, passages.ts). When the request `cites` (conversations), each quote ends with its source's number (`> TOTAL 42.50 [1]`) and the text is followed by one `reference` per page quoted (`tool: "attachment"`, the file name or "Your image" as `title`, `url` null, the passage as `description`, `page` from 1); not in JSON replies, nor in chat completions. |
 * | `function` tools are present, `tool_choice` is not `none`, and the last user message names a tool (`get_weather`, `get weather`, `getWeather`), one of its distinctive name words (`weather`), or two distinctive words of its description; or `tool_choice` is `any`/`required` (then the best-scoring tool is called regardless) | `function_call` events with 9-char alphanumeric ids derived from a hash of the conversation, arguments streamed in a few pieces. Arguments are JSON valid for the tool's `parameters` schema, filled from the message text (see `fillJsonSchema` in json-schema-filler.ts). Several tools named explicitly in one message → several calls. |
 * | `documents` and the last user message, without attachments, shares words with a passage of the earlier ones | The same quoting reply (with its sources when the request `cites`). |
 * | `response_format` is `json_object` | One JSON object `{"reply": "...", "words": n}` (the reply of the rows above or below, as plain text). |
 * | `response_format` is `json_schema` | A JSON value valid for the schema, filled from the message text. |
 * | The message mentions `markdown` (everything), `table`, `code`/`snippet`, `list`/`bullet`/`numbered`, `heading`/`header`, `link`/`url` | A markdown demonstration with the requested elements. |
 * | A `document_library` function is offered (the platform's library tool, library.ts), `tool_choice` is not `none`, and no call was made since the message | One call `document_library({"query": <the message>})`; its result is answered by quoting the passages found, best first, each with its source's title and number (`— *Returns* [1]`), or by saying nothing was found. |
 * | Anything else | A short markdown reply that quotes the message, counts its words and mentions the agent name and the start of the instructions. |
 *
 * `completion_args.stop` cuts text before the first stop sequence and `max_tokens` caps the number of
 * text tokens (these limits apply to text, including JSON-mode text; function-call arguments are always
 * emitted whole so they stay valid JSON). Text is streamed one token per `text` event (see
 * {@link tokenize}); `usage` counts prompt tokens over the instructions and the text of every history
 * entry ({@link countPromptTokens}) and completion tokens over what was yielded.
 *
 * This file streams a turn; turn-plan.ts decides what the turn is, replies.ts writes its text and
 * json-schema-filler.ts fills function arguments and `json_schema` replies.
 */
import type { ModelCard } from 'parley-kit/types';
import { modelCard } from '../model-card.js';
import { countPromptTokens, countTokens, tokenize } from '../text/tokenizer.js';
import { HASHED_EMBEDDING_DIMENSION, hashedEmbedding } from '../embeddings/hashed.js';
import type { Embed } from './passages.js';
import { LOCAL_FAIL_TRIGGER, planTurn } from './turn-plan.js';
import type { ChatEngine, ChatEngineEvent, ChatTurnRequest } from './types.js';

/** Model id served by {@link createLocalChatEngine}. */
export const LOCAL_CHAT_MODEL_ID = 'parley-local';
/** Ids of the hosted platform that also resolve to `parley-local`, so code written for it runs offline. */
export const LOCAL_CHAT_MODEL_ALIASES: readonly string[] = ['mistral-small-latest', 'mistral-medium-latest', 'mistral-large-latest'];

export interface LocalChatEngineOptions {
  /** Milliseconds to wait between streamed tokens (default 0). The wait stops as soon as the request is aborted. */
  tokenDelayMs?: number;
  /** Embeds the question and the passages of read attachments to rank them (default: `parley-embed`, 1024 dimensions). */
  embed?: Embed;
}

const defaultEmbed: Embed = (texts) => texts.map((t) => hashedEmbedding(t, HASHED_EMBEDDING_DIMENSION));

/** Cut `text` before the first occurrence of any stop sequence. */
function applyStop(text: string, stop: string | string[] | null | undefined): string {
  const stops = (typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : []).filter((s) => typeof s === 'string' && s.length > 0);
  let cut = text.length;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i >= 0 && i < cut) cut = i;
  }
  return text.slice(0, cut);
}

function limitTokens(tokens: string[], maxTokens: number | null | undefined): string[] {
  if (typeof maxTokens !== 'number' || !Number.isFinite(maxTokens)) return tokens;
  return tokens.slice(0, Math.max(0, Math.floor(maxTokens)));
}

/** Split JSON text into a few pieces along token boundaries. */
function argumentPieces(json: string): string[] {
  const tokens = tokenize(json);
  const count = Math.min(4, Math.max(1, Math.ceil(tokens.length / 3)));
  const size = Math.ceil(tokens.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < tokens.length; i += size) pieces.push(tokens.slice(i, i + size).join(''));
  return pieces.length ? pieces : [json];
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

// ---------------------------------------------------------------- the engine

const LOCAL_MODEL_CARD: ModelCard = modelCard({
  id: LOCAL_CHAT_MODEL_ID,
  created: 1735689600,
  ownedBy: 'mistralai',
  capabilities: { completion_chat: true, function_calling: true, vision: true },
  name: 'Parley local stand-in',
  description:
    'A deterministic local stand-in for offline development, not a language model: it describes your message instead of ' +
    'understanding it, quotes the passages of attached images and PDFs closest to your question (with their page), ' +
    'demonstrates markdown when asked, calls function tools you name, hands off to agents you ask for and ' +
    'fails on purpose on "/fail". It also answers to mistral-small-latest, mistral-medium-latest and mistral-large-latest so ' +
    'code written for the hosted platform runs offline.',
  aliases: [...LOCAL_CHAT_MODEL_ALIASES],
});

/**
 * Create the `parley-local` chat engine: a deterministic stand-in (no ML, no randomness, no network)
 * that exercises every path a chat UI renders. See the module documentation for its rules.
 *
 * Test hook: when the last user message is exactly `/fail` (after trimming), the engine streams a few
 * text tokens and then throws `Error("parley-local failed on purpose …")`, so UIs can exercise
 * mid-stream failures.
 *
 * Pacing: with `tokenDelayMs` > 0 it waits that long between tokens; aborting `request.signal` stops
 * the generator promptly by throwing the signal's reason (an `AbortError` `DOMException` by default).
 */
export function createLocalChatEngine(options: LocalChatEngineOptions = {}): ChatEngine {
  const delay = Math.max(0, options.tokenDelayMs ?? 0);
  const embed = options.embed ?? defaultEmbed;

  async function* run(request: ChatTurnRequest): AsyncGenerator<ChatEngineEvent> {
    const { signal } = request;
    if (signal.aborted) throw abortReason(signal);
    const plan = planTurn(request, embed);
    const promptTokens = countPromptTokens(request.instructions, request.history);
    let completionTokens = 0;
    let first = true;
    const pace = async (): Promise<void> => {
      if (!first && delay > 0) await sleep(delay, signal);
      first = false;
      if (signal.aborted) throw abortReason(signal);
    };
    const args = request.completionArgs ?? {};

    switch (plan.kind) {
      case 'handoff':
        await pace();
        yield { kind: 'handoff', agentId: plan.agentId };
        return;
      case 'calls':
        for (const call of plan.calls) {
          for (const piece of argumentPieces(call.arguments)) {
            await pace();
            completionTokens += countTokens(piece);
            yield { kind: 'function_call', toolCallId: call.toolCallId, name: call.name, argumentsDelta: piece };
          }
        }
        break;
      case 'fail': {
        for (const token of limitTokens(tokenize(plan.text), args.max_tokens)) {
          await pace();
          completionTokens++;
          yield { kind: 'text', delta: token };
        }
        await pace();
        throw new Error(
          `parley-local failed on purpose: the last user message was "${LOCAL_FAIL_TRIGGER}", the test hook for mid-stream errors ` +
            `(after ${completionTokens} tokens).`,
        );
      }
      case 'text': {
        let streamed = 0;
        for (const token of limitTokens(tokenize(applyStop(plan.text, args.stop)), args.max_tokens)) {
          await pace();
          completionTokens++;
          streamed += token.length;
          yield { kind: 'text', delta: token };
        }
        // the sources whose number was streamed (a stop sequence or max_tokens may cut the text before it)
        for (const source of plan.sources ?? []) if (source.end <= streamed) yield { kind: 'reference', reference: source.reference };
        break;
      }
    }
    if (signal.aborted) throw abortReason(signal);
    yield { kind: 'usage', promptTokens, completionTokens };
  }

  return {
    models: () => [structuredClone(LOCAL_MODEL_CARD)],
    readsDocuments: true,
    run,
  };
}
