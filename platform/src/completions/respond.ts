/**
 * Writes completion choices as the platform answers them: one `chat.completion` JSON body, or
 * `text/event-stream` with `data: {chat.completion.chunk}` events ended by `data: [DONE]` (the framing the
 * SDK's `CompletionEvent` stream expects). Shared by chat, FIM and agent completions.
 */
import { countTokens } from '../engines/text/tokenizer.js';
import { genericError } from '../http/errors.js';
import { sseResponse } from '../http/sse.js';
import { completionId } from '../http/ids.js';
import type { ChoiceEvent, FinishReason } from './choice.js';
import type { CompletionMessage, CompletionToolCall } from './messages.js';

/** A completion to produce: its choices (one engine run each) and what to do with the token counts. */
export interface CompletionJob {
  /** The model named in the answer (as the caller or the agent named it). */
  model: string;
  /** One producer per choice, started in turn (see `runChoice` and `runInfill`). */
  choices: Array<() => AsyncIterable<ChoiceEvent>>;
  /** Text every choice's content starts with (the assistant prefix). */
  prefix: string;
  /** Called once with the totals when every choice is done (prompt tokens count once, as billed). */
  recordUsage(promptTokens: number, completionTokens: number): Promise<void>;
}

interface Usage { prompt_tokens: number; completion_tokens: number; total_tokens: number }

/** The body of a non-streamed completion. */
export interface CompletionBody {
  id: string;
  object: 'chat.completion';
  model: string;
  created: number;
  choices: Array<{ index: number; message: CompletionMessage; finish_reason: FinishReason }>;
  usage: Usage;
}

const unixNow = (): number => Math.floor(Date.now() / 1000);
const usageOf = (prompt: number, completion: number): Usage => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

/** An engine failure as the conversations API reports it (499 when the caller went away). */
function modelError(err: unknown, signal: AbortSignal) {
  const message = err instanceof Error ? err.message : String(err);
  return genericError(signal.aborted ? 499 : 500, `The model failed to answer: ${message}`, 'server_error', 'model_error');
}

/** Runs every choice to the end and returns the JSON body. */
export async function completeJson(job: CompletionJob, signal: AbortSignal): Promise<CompletionBody> {
  const body: CompletionBody = { id: completionId(), object: 'chat.completion', model: job.model, created: unixNow(), choices: [], usage: usageOf(0, 0) };
  let prompt = 0;
  let completion = 0;
  try {
    for (const [index, produce] of job.choices.entries()) {
      let content = job.prefix;
      for await (const event of produce()) {
        if (event.kind === 'text') {
          content += event.delta;
          continue;
        }
        prompt = event.promptTokens;
        completion += event.completionTokens;
        body.choices.push({ index, message: { role: 'assistant', content, tool_calls: event.toolCalls, prefix: false }, finish_reason: event.finishReason });
      }
    }
  } catch (err) {
    await job.recordUsage(prompt, completion);
    throw modelError(err, signal);
  }
  await job.recordUsage(prompt, completion);
  body.usage = usageOf(prompt, completion);
  return body;
}

/**
 * Streams every choice (one after the other, each chunk naming its choice `index`): a first chunk with the
 * role and the prefix, one chunk per text piece, and a last chunk with the tool calls and `finish_reason`;
 * the final chunk also carries `usage`. An engine failure ends the stream with `finish_reason: "error"`.
 * Cancelling the response aborts the engine through `abort`.
 */
export function completeStream(job: CompletionJob, abort: AbortController): Response {
  const id = completionId();
  const created = unixNow();
  const chunk = (index: number, delta: Record<string, unknown>, finishReason: string | null, usage?: Usage) =>
    JSON.stringify({
      id, object: 'chat.completion.chunk', created, model: job.model,
      choices: [{ index, delta, finish_reason: finishReason }],
      ...(usage ? { usage } : {}),
    });

  async function* chunks(): AsyncGenerator<string> {
    let prompt = 0;
    let completion = 0;
    /** Tokens streamed of the choice in progress, so a stream cut short is still recorded for what it sent. */
    let partial = 0;
    let recorded = false;
    const record = async () => {
      if (recorded) return;
      recorded = true;
      await job.recordUsage(prompt, completion + partial);
    };
    const last = job.choices.length - 1;
    let current = 0;
    try {
      for (const [index, produce] of job.choices.entries()) {
        current = index;
        yield chunk(index, { role: 'assistant', content: job.prefix }, null);
        for await (const event of produce()) {
          if (event.kind === 'text') {
            partial += countTokens(event.delta);
            yield chunk(index, { content: event.delta }, null);
            continue;
          }
          prompt = event.promptTokens;
          completion += event.completionTokens;
          partial = 0;
          const delta: { content: string; tool_calls?: CompletionToolCall[] } = { content: '' };
          if (event.toolCalls) delta.tool_calls = event.toolCalls;
          if (index === last) await record();
          yield chunk(index, delta, event.finishReason, index === last ? usageOf(prompt, completion) : undefined);
        }
      }
    } catch {
      await record();
      if (abort.signal.aborted) return;
      yield chunk(current, { content: '' }, 'error', usageOf(prompt, completion + partial));
    } finally {
      // Also runs when the client cancels the stream between two chunks.
      await record();
    }
    yield '[DONE]';
  }

  const encoder = new TextEncoder();
  const source = chunks();
  return sseResponse(new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await source.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`data: ${next.value}\n\n`));
    },
    async cancel() {
      abort.abort();
      await source.return(undefined);
    },
  }));
}
