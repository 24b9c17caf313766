/**
 * Chat, FIM and agent completions (the stateless APIs) on the chat engines that serve conversations:
 * `POST /v1/chat/completions`, `POST /v1/fim/completions`, `POST /v1/agents/completions`, each as JSON or,
 * with `stream: true`, as `data:` chunks ended by `data: [DONE]`. Nothing is stored; usage is recorded.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { CompletionArgs, Tool } from 'parley-kit/types';
import { callerOf } from '../http/caller.js';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { runChoice } from './choice.js';
import { INFILL_MODEL_CARD, runInfill } from './infill.js';
import { engineTools, toEngineInput } from './messages.js';
import { completeJson, completeStream, type CompletionJob } from './respond.js';
import {
  AgentsCompletionRequestSchema,
  ChatCompletionRequestSchema,
  FimCompletionRequestSchema,
  type AgentsCompletionRequest,
  type ChatCompletionRequest,
} from './schemas.js';
import type { ChatEngine } from '../engines/chat/types.js';
import { invalidField, invalidModel, notFound } from '../http/errors.js';
import { isoNow } from '../http/ids.js';
import { readJson } from '../http/validation.js';
import { prepareAttachments } from '../ocr/attachments.js';
import { CompletionRecorder, type CompletionRequest } from '../observability/recorder.js';

/** The platform's safety prompt, put before the system messages when `safe_prompt` is true. */
const SAFE_PROMPT =
  'Always assist with care, respect, and truth. Respond with utmost utility yet securely. Avoid harmful, unethical, ' +
  'prejudiced, or negative content. Ensure replies promote fairness and positivity.';

type Endpoint = 'chat.completions' | 'fim.completions' | 'agents.completions';

/** The completion routes: chat and agent completions on `ctx.chat`, FIM on `ctx.fim`. */
export function chatCompletionRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const events = new CompletionRecorder(ctx.db);

  /** Answers a job as JSON or as a stream; the engines stop when the caller goes away. */
  const answer = async (c: Context, job: Omit<CompletionJob, 'choices'>, stream: boolean, choices: (signal: AbortSignal) => CompletionJob['choices'], request: CompletionRequest) => {
    const abort = new AbortController();
    c.req.raw.signal.addEventListener('abort', () => abort.abort(), { once: true });
    const full = { ...job, choices: choices(abort.signal) };
    if (stream) return events.stream(c, request, job.model, completeStream(full, abort));
    const body = await completeJson(full, abort.signal);
    await events.completion(c, request, job.model, body);
    return c.json(body);
  };

  const usageRecorder = (c: Context, endpoint: Endpoint, model: string) => {
    const caller = callerOf(c);
    return (promptTokens: number, completionTokens: number) =>
      ctx.usage.record({ userId: caller.userId, workspaceId: caller.workspaceId, model, endpoint, promptTokens, completionTokens, at: isoNow() });
  };

  /**
   * The engine job of a chat or agent completion: adapted messages, tools and args, one run per choice. The
   * messages' attachments are checked (4xx) and, for an engine that reads them, read first.
   */
  const chatJob = async (
    c: Context,
    body: ChatCompletionRequest | AgentsCompletionRequest,
    engine: ChatEngine,
    model: string,
    settings: { preamble: string[]; tools: Tool[]; args: CompletionArgs; agent: { id: string; name: string } | null },
  ) => {
    const input = toEngineInput(body.messages, settings.preamble);
    const { tools, toolChoice } = engineTools(settings.tools, body.tool_choice);
    const documents = await prepareAttachments(ctx, {
      sources: body.messages.map((m, i) => ({ content: m.content, loc: ['body', 'messages', i, 'content'] })),
      history: input.history,
      read: engine.readsDocuments === true,
      signal: c.req.raw.signal,
    });
    const args: CompletionArgs = { ...settings.args };
    const set = <K extends keyof CompletionArgs>(key: K, value: CompletionArgs[K] | null | undefined) => {
      if (value !== undefined && value !== null) args[key] = value;
    };
    set('max_tokens', body.max_tokens);
    set('stop', body.stop);
    set('random_seed', body.random_seed);
    set('response_format', body.response_format);
    set('presence_penalty', body.presence_penalty);
    set('frequency_penalty', body.frequency_penalty);
    set('reasoning_effort', body.reasoning_effort);
    set('prediction', body.prediction);
    set('tool_choice', toolChoice);
    if ('temperature' in body) {
      set('temperature', body.temperature);
      set('top_p', body.top_p);
    }
    const count = body.n ?? 1;
    return {
      prefix: input.prefix,
      choices: (signal: AbortSignal) =>
        Array.from({ length: count }, (_, i) => () =>
          runChoice({
            engine, model, input, tools, documents, agent: settings.agent, signal,
            // Choices differ through the seed (the only variation a deterministic engine has).
            completionArgs: i === 0 ? args : { ...args, random_seed: (args.random_seed ?? 0) + i },
            parallelToolCalls: body.parallel_tool_calls !== false,
          })),
    };
  };

  app.post('/chat/completions', async (c) => {
    const body = await readJson(c, ChatCompletionRequestSchema, ctx.limits.maxJsonBytes);
    const resolved = ctx.chat.resolve(body.model);
    if (!resolved) throw invalidModel(body.model, { kind: 'a chat model' });
    (body.tools ?? []).forEach((tool, i) => {
      if (tool.type !== 'function') {
        throw invalidField(['body', 'tools', i, 'type'], `Chat completions run function tools only; '${tool.type}' runs on the server in /v1/conversations`, 'value_error', tool.type);
      }
    });
    const job = await chatJob(c, body, resolved.engine, body.model, {
      preamble: body.safe_prompt ? [SAFE_PROMPT] : [],
      tools: (body.tools ?? []) as Tool[],
      args: {},
      agent: null,
    });
    return answer(c, { model: body.model, prefix: job.prefix, recordUsage: usageRecorder(c, 'chat.completions', resolved.card.id) }, body.stream === true, job.choices, body);
  });

  app.post('/agents/completions', async (c) => {
    const body = await readJson(c, AgentsCompletionRequestSchema, ctx.limits.maxJsonBytes);
    const agent = await ctx.agents.get(body.agent_id);
    if (!agent) throw notFound(`Agent '${body.agent_id}' not found`);
    const resolved = ctx.chat.resolve(agent.model);
    if (!resolved) throw invalidModel(agent.model, { why: `The model of agent '${agent.id}' is not a chat model of this platform` });
    const job = await chatJob(c, body, resolved.engine, agent.model, {
      preamble: agent.instructions ? [agent.instructions] : [],
      // Tools given with the request replace the agent's; built-in tools run only in conversations.
      tools: ((body.tools as Tool[] | null | undefined) ?? agent.tools ?? []),
      args: agent.completion_args ?? {},
      agent: { id: agent.id, name: agent.name },
    });
    return answer(c, { model: agent.model, prefix: job.prefix, recordUsage: usageRecorder(c, 'agents.completions', resolved.card.id) }, body.stream === true, job.choices, body);
  });

  app.post('/fim/completions', async (c) => {
    const body = await readJson(c, FimCompletionRequestSchema, ctx.limits.maxJsonBytes);
    const resolved = ctx.fim.resolve(body.model);
    if (!resolved) {
      const chat = ctx.chat.resolve(body.model);
      throw invalidModel(body.model, {
        why: chat
          ? `It is a chat model without fill-in-the-middle (capabilities.completion_fim is false); use ${INFILL_MODEL_CARD.id} or codestral-latest`
          : `It is not a fill-in-the-middle model of this platform; use ${INFILL_MODEL_CARD.id} or codestral-latest`,
      });
    }
    const request = { prompt: body.prompt, suffix: body.suffix ?? '', stop: body.stop, maxTokens: body.max_tokens };
    return answer(c, { model: body.model, prefix: '', recordUsage: usageRecorder(c, 'fim.completions', resolved.card.id) }, body.stream === true,
      (signal) => [() => runInfill({ ...request, signal })], body);
  });

  return app;
}
