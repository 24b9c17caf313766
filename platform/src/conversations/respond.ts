/**
 * Answers one turn of a conversation (start, append and restart all end here): takes the conversation's turn
 * lock (409 `conversation_busy` while another turn holds it, turn-locks.ts), saves the inputs and what the
 * turn produced (store.ts; nothing with `store: false`), runs the turn (turns.ts), records the completion event
 * and the usage, and answers JSON, or streams the turn as server-sent events. A streamed turn keeps what it
 * produced even when it breaks, so history shows what the caller saw.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { CompletionArgs, ConversationEntry, ConversationEvent, ConversationResponse, HandoffExecution } from 'parley-kit/types';
import type { PlatformContext } from '../http/context.js';
import { PlatformHttpError, genericError } from '../http/errors.js';
import { isoNow } from '../http/ids.js';
import { callerOf } from '../http/caller.js';
import { CompletionRecorder, type TurnSpeaker } from '../observability/recorder.js';
import { prepareAttachments } from '../ocr/attachments.js';
import type { StoredConversation } from './store.js';
import type { TurnLocks } from './turn-locks.js';
import { runTurn, type Speaker, type TurnResult } from './turns.js';
import { readableLibraries } from '../libraries/tool.js';

/** One turn to answer: the conversation (new or stored), its history with this turn's inputs, who speaks, and how to answer. */
export interface TurnPlan {
  conversation: StoredConversation;
  isNew: boolean;
  /** Entries copied from another conversation (restart). */
  copied?: ConversationEntry[];
  history: ConversationEntry[];
  newEntries: ConversationEntry[];
  speaker: Speaker;
  stream: boolean;
  store: boolean;
  handoffExecution: HandoffExecution;
  completionArgs?: CompletionArgs | null;
}

/** How the caller asks to be answered (`stream`, `store`, `handoff_execution` of a start, append or restart body), with the defaults. */
export function answerOptions(body: { stream?: boolean | null; store?: boolean | null; handoff_execution?: HandoffExecution | null }): Pick<TurnPlan, 'stream' | 'store' | 'handoffExecution'> {
  return { stream: body.stream === true, store: body.store !== false, handoffExecution: body.handoff_execution ?? 'server' };
}

/** 409 while another turn holds the conversation. */
export function conversationBusy(id: string) {
  return genericError(409, `Conversation '${id}' has a turn in progress; wait for it to finish`, 'invalid_request_error', 'conversation_busy');
}

/** The speaker as the turn's completion event records it. */
function recordedSpeaker(speaker: Speaker): TurnSpeaker {
  return speaker.kind === 'agent'
    ? { agentId: speaker.agent.id, model: speaker.agent.model, instructions: speaker.agent.instructions, tools: speaker.agent.tools ?? [] }
    : { agentId: null, model: speaker.model, instructions: speaker.instructions, tools: speaker.tools ?? [] };
}

/** The answerer of the conversation routes, over their turn locks. */
export function createResponder(ctx: PlatformContext, locks: TurnLocks): (c: Context, plan: TurnPlan) => Promise<Response> {
  const events = new CompletionRecorder(ctx.db);
  return async (c, plan) => {
    const id = plan.conversation.record.id;
    // A library the caller cannot read refuses the turn before anything is stored or streamed.
    await readableLibraries(ctx, recordedSpeaker(plan.speaker).tools, callerOf(c));
    // Attachments of the inputs are checked (4xx) and, for a model that reads them, read before the turn starts.
    const model = plan.speaker.kind === 'agent' ? plan.speaker.agent.model : plan.speaker.model;
    const documents = await prepareAttachments(ctx, {
      sources: plan.newEntries.map((e, i) => ({ content: 'content' in e ? e.content : null, loc: ['body', 'inputs', i, 'content'] })),
      history: plan.history,
      read: ctx.chat.resolve(model)?.engine.readsDocuments === true,
      signal: c.req.raw.signal ?? new AbortController().signal,
    });
    const token = await locks.acquire(id);
    if (!token) throw conversationBusy(id);
    const abort = new AbortController();
    c.req.raw.signal?.addEventListener('abort', () => abort.abort(), { once: true });

    /** Makes the conversation exist with this turn's inputs (streamed turns, before the first event). */
    const saveInputs = async () => {
      if (!plan.store) return;
      if (plan.isNew) await ctx.conversations.create(plan.conversation, [...(plan.copied ?? []), ...plan.newEntries]);
      else if (plan.newEntries.length) await ctx.conversations.append(id, plan.newEntries, plan.conversation);
    };
    /** Adds what the turn produced, and with `withInputs` the inputs too (JSON turns save everything at once). */
    const saveOutputs = async (result: TurnResult, withInputs: boolean) => {
      if (!plan.store) return;
      const conversation = structuredClone(plan.conversation);
      conversation.record.updated_at = isoNow();
      conversation.state.activeAgentId = result.activeAgentId;
      const entries = withInputs ? [...plan.newEntries, ...result.outputs] : result.outputs;
      if (withInputs && plan.isNew) await ctx.conversations.create(conversation, [...(plan.copied ?? []), ...entries]);
      else await ctx.conversations.append(id, entries, conversation);
    };

    const caller = callerOf(c);
    const recordUsage = async (result: TurnResult) => {
      await events.turn({ caller, conversationId: id, speaker: recordedSpeaker(plan.speaker), history: plan.history, outputs: result.outputs, usage: result.usage, stream: plan.stream, error: result.error });
      const model = plan.speaker.kind === 'agent' ? plan.speaker.agent.model : plan.speaker.model;
      return ctx.usage.record({
        userId: caller.userId, workspaceId: caller.workspaceId, model: ctx.chat.resolve(model)?.card.id ?? model, endpoint: 'conversations',
        promptTokens: result.usage.prompt_tokens, completionTokens: result.usage.completion_tokens, at: isoNow(),
      });
    };

    if (!plan.stream) {
      try {
        const result = await runTurn(ctx, { speaker: plan.speaker, history: plan.history, documents, completionArgs: plan.completionArgs, handoffExecution: plan.handoffExecution, signal: abort.signal, caller });
        await recordUsage(result);
        if (result.error) {
          throw genericError(result.error.aborted ? 499 : 500, `The model failed to answer: ${result.error.message}`, 'server_error', 'model_error');
        }
        await saveOutputs(result, true);
        return c.json({ object: 'conversation.response', conversation_id: id, outputs: result.outputs, usage: result.usage } satisfies ConversationResponse);
      } finally {
        await locks.release(id, token);
      }
    }

    try {
      await saveInputs();
    } catch (err) {
      await locks.release(id, token);
      throw err;
    }
    return streamSSE(c, async (sse) => {
      sse.onAbort(() => abort.abort());
      const send = async (event: ConversationEvent) => {
        if (abort.signal.aborted) return;
        await sse.writeSSE({ event: event.type, data: JSON.stringify(event) });
      };
      try {
        await send({ type: 'conversation.response.started', conversation_id: id, created_at: isoNow() });
        const result = await runTurn(ctx, { speaker: plan.speaker, history: plan.history, documents, completionArgs: plan.completionArgs, handoffExecution: plan.handoffExecution, signal: abort.signal, emit: send, caller });
        await recordUsage(result);
        // What was produced is kept even when the turn broke, so history shows what the user saw.
        await saveOutputs(result, false);
        if (result.error) {
          await send({ type: 'conversation.response.error', message: result.error.message, code: 500, created_at: isoNow() });
        } else {
          await send({ type: 'conversation.response.done', usage: result.usage, created_at: isoNow() });
        }
      } catch (err) {
        await send({ type: 'conversation.response.error', message: err instanceof Error ? err.message : String(err), code: err instanceof PlatformHttpError ? err.status : 500, created_at: isoNow() }).catch(() => {});
      } finally {
        await locks.release(id, token);
      }
    });
  };
}
