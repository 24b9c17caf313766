/**
 * Conversations API (`/v1/conversations…`, mounted under that prefix by app.ts): start a conversation with a
 * model or an agent, append to it, restart it from an entry, read it, its history and its messages, list and
 * delete. Every turn is answered by respond.ts (lock, save, run, record, JSON or SSE); the turn itself is
 * turns.ts; the request schemas are schemas.ts; the records and entries are kept by store.ts.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type {
  AgentConversation, Conversation, ConversationEntry, ConversationHistory, ConversationMessages,
  MessageInputEntry, MessageOutputEntry, ModelConversation,
} from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { genericError, invalidField, invalidModel, notFound, validationError } from '../http/errors.js';
import { isoNow, newId } from '../http/ids.js';
import { queryInt } from '../http/schemas.js';
import { readJson, validate } from '../http/validation.js';
import { parseJsonDocument } from '../http/input-guard.js';
import { AppendConversationSchema, RestartConversationSchema, StartConversationSchema, type ParsedInputs } from './schemas.js';
import type { ConversationState, StoredConversation } from './store.js';
import type { Speaker } from './turns.js';
import { createTurnLocks } from './turn-locks.js';
import { answerOptions, conversationBusy, createResponder } from './respond.js';

const ListQuery = z.object({
  page: queryInt(0, 0),
  page_size: queryInt(100, 1, 1000),
  metadata: z.string().optional(),
});

export function conversationRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  /** Conversations with a turn in progress: a second turn at once is refused, not interleaved (in the database: every process sees them). */
  const busy = createTurnLocks(ctx.db);
  const respond = createResponder(ctx, busy);

  app.post('/', async (c) => {
    const body = await readJson(c, StartConversationSchema, ctx.limits.maxJsonBytes);
    if (body.agent_id && body.model) {
      throw invalidField(['body', 'model'], 'Give either model or agent_id, not both', 'value_error', body.model);
    }
    if (!body.agent_id && !body.model) {
      throw validationError([{ loc: ['body', 'model'], msg: 'Either model or agent_id is required', type: 'missing' }]);
    }
    const now = isoNow();
    const id = newId('conv');
    let speaker: Speaker;
    let record: Conversation;
    let state: ConversationState;
    const common = { object: 'conversation' as const, id, created_at: now, updated_at: now, name: body.name ?? null, description: body.description ?? null, metadata: body.metadata ?? null };
    if (body.agent_id) {
      for (const field of ['instructions', 'tools'] as const) {
        if (body[field] != null) throw invalidField(['body', field], `${field} cannot be set when starting a conversation with an agent; update the agent instead`, 'value_error', body[field]);
      }
      const agent = body.agent_version == null
        ? await ctx.agents.get(body.agent_id)
        : await ctx.agents.getVersion(body.agent_id, body.agent_version);
      if (!agent) {
        throw body.agent_version == null || !(await ctx.agents.get(body.agent_id))
          ? notFound(`Agent '${body.agent_id}' not found`)
          : notFound(`Agent '${body.agent_id}' has no version or alias '${body.agent_version}'`);
      }
      speaker = { kind: 'agent', agent };
      record = { ...common, agent_id: agent.id, agent_version: body.agent_version ?? agent.version } satisfies AgentConversation;
      state = { activeAgentId: agent.id, agentVersion: agent.version, model: null };
    } else {
      const model = body.model as string;
      if (!ctx.chat.resolve(model)) throw invalidModel(model);
      const modelRecord: ModelConversation = {
        ...common, model, instructions: body.instructions ?? null, tools: body.tools ?? [], completion_args: body.completion_args ?? {}, guardrails: body.guardrails ?? null,
      };
      record = modelRecord;
      speaker = modelSpeaker(modelRecord);
      state = { activeAgentId: null, agentVersion: null, model };
    }
    const inputs = toEntries(body.inputs, []);
    return respond(c, {
      conversation: { record, state },
      isNew: true,
      history: inputs,
      newEntries: inputs,
      speaker,
      ...answerOptions(body),
      completionArgs: body.agent_id ? body.completion_args : null,
    });
  });

  app.get('/', async (c) => {
    const q = validate(ListQuery, c.req.query(), ['query']);
    let metadata: Record<string, unknown> | undefined;
    if (q.metadata) {
      try {
        metadata = parseJsonDocument(q.metadata) as Record<string, unknown>;
      } catch {
        throw invalidField(['query', 'metadata'], 'metadata must be a JSON object', 'json_invalid', q.metadata);
      }
      if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) {
        throw invalidField(['query', 'metadata'], 'metadata must be a JSON object', 'dict_type', q.metadata);
      }
    }
    return c.json(await ctx.conversations.list({ page: q.page, pageSize: q.page_size, metadata }));
  });

  app.get('/:id', async (c) => c.json((await load(c.req.param('id'))).record));

  app.delete('/:id', async (c) => {
    const id = c.req.param('id');
    if (await busy.held(id)) throw conversationBusy(id);
    if (!(await ctx.conversations.delete(id))) throw notFound(`Conversation '${id}' not found`);
    return c.body(null, 204);
  });

  app.get('/:id/history', async (c) => {
    const { record } = await load(c.req.param('id'));
    const entries = await ctx.conversations.entries(record.id);
    return c.json({ object: 'conversation.history', conversation_id: record.id, entries } satisfies ConversationHistory);
  });

  app.get('/:id/messages', async (c) => {
    const { record } = await load(c.req.param('id'));
    const messages = (await ctx.conversations.entries(record.id)).filter(
      (e): e is MessageInputEntry | MessageOutputEntry => e.type === 'message.input' || e.type === 'message.output');
    return c.json({ object: 'conversation.messages', conversation_id: record.id, messages } satisfies ConversationMessages);
  });

  app.post('/:id', async (c) => {
    const conversation = await load(c.req.param('id'));
    const body = await readJson(c, AppendConversationSchema, ctx.limits.maxJsonBytes);
    const history = await ctx.conversations.entries(conversation.record.id);
    checkConfirmations(body.tool_confirmations ?? [], history);
    const inputs = toEntries(body.inputs ?? [], history);
    return respond(c, {
      conversation,
      isNew: false,
      history: [...history, ...inputs],
      newEntries: inputs,
      speaker: await speakerOf(conversation),
      ...answerOptions(body),
      completionArgs: body.completion_args,
    });
  });

  app.post('/:id/restart', async (c) => {
    const source = await load(c.req.param('id'));
    const body = await readJson(c, RestartConversationSchema, ctx.limits.maxJsonBytes);
    const history = await ctx.conversations.entries(source.record.id);
    const cut = history.findIndex((e) => e.id === body.from_entry_id);
    if (cut < 0) {
      throw invalidField(['body', 'from_entry_id'], `Entry '${body.from_entry_id}' is not part of conversation '${source.record.id}'`, 'value_error', body.from_entry_id);
    }
    const kept = history.slice(0, cut + 1);
    const now = isoNow();
    const record = { ...source.record, id: newId('conv'), created_at: now, updated_at: now } as Conversation;
    if (body.metadata !== undefined) record.metadata = body.metadata;
    if (body.guardrails !== undefined && 'model' in record) record.guardrails = body.guardrails;
    const state = { ...source.state };
    // The speaker at the cut: the agent who spoke last before it (handoffs after the cut are undone).
    if ('agent_id' in record) {
      let active = record.agent_id;
      for (const e of kept) if (e.type === 'agent.handoff') active = e.next_agent_id;
      state.activeAgentId = active;
      if (body.agent_version != null) {
        const agent = await ctx.agents.getVersion(record.agent_id, body.agent_version);
        if (!agent) throw notFound(`Agent '${record.agent_id}' has no version or alias '${body.agent_version}'`);
        record.agent_version = body.agent_version;
        state.agentVersion = agent.version;
      }
    }
    const conversation: StoredConversation = { record, state };
    const inputs = toEntries(body.inputs ?? [], kept);
    return respond(c, {
      conversation,
      isNew: true,
      copied: kept,
      history: [...kept, ...inputs],
      newEntries: inputs,
      speaker: await speakerOf(conversation),
      ...answerOptions(body),
      completionArgs: body.completion_args,
    });
  });

  async function load(id: string): Promise<StoredConversation> {
    const found = await ctx.conversations.get(id);
    if (!found) throw notFound(`Conversation '${id}' not found`);
    return found;
  }

  async function speakerOf({ record, state }: StoredConversation): Promise<Speaker> {
    if ('agent_id' in record) {
      const agentId = state.activeAgentId ?? record.agent_id;
      // The starting agent keeps the version it was started with; an agent handed to speaks at its current version.
      const agent = agentId === record.agent_id && state.agentVersion != null
        ? await ctx.agents.getVersion(agentId, state.agentVersion)
        : await ctx.agents.get(agentId);
      if (!agent) throw genericError(409, `Agent '${agentId}' of this conversation no longer exists`, 'invalid_request_error', 'agent_deleted');
      return { kind: 'agent', agent };
    }
    return modelSpeaker(record as ModelConversation);
  }

  return app;
}

/** Caller inputs → stored entries, with ids and timestamps; a function result must answer a call in the history. */
function toEntries(inputs: ParsedInputs, history: ConversationEntry[]): ConversationEntry[] {
  const list = typeof inputs === 'string' ? [{ role: 'user' as const, content: inputs }] : inputs;
  const out: ConversationEntry[] = [];
  list.forEach((input, index) => {
    const now = isoNow();
    const base = { object: 'entry' as const, created_at: now, completed_at: now };
    const type = input.type ?? 'message.input';
    switch (input.type) {
      case undefined:
      case 'message.input':
        out.push({ ...base, id: newId('msg'), type: 'message.input', role: input.role, content: input.content, prefix: input.prefix ?? false });
        break;
      case 'message.output':
        out.push({ ...base, id: newId('msg'), type: 'message.output', role: 'assistant', content: input.content, agent_id: input.agent_id ?? null, model: input.model ?? null });
        break;
      case 'function.call':
        out.push({ ...base, id: newId('fc'), type: 'function.call', tool_call_id: input.tool_call_id, name: input.name,
          arguments: typeof input.arguments === 'string' ? input.arguments : JSON.stringify(input.arguments), agent_id: input.agent_id ?? null, model: input.model ?? null });
        break;
      case 'function.result': {
        const calls = [...history, ...out].filter((e) => e.type === 'function.call' && e.tool_call_id === input.tool_call_id);
        if (!calls.length) {
          throw invalidField(['body', 'inputs', index, 'tool_call_id'], `No function call with tool_call_id '${input.tool_call_id}' in this conversation`, 'value_error', input.tool_call_id);
        }
        out.push({ ...base, id: newId('msg'), type: 'function.result', tool_call_id: input.tool_call_id, result: input.result });
        break;
      }
      case 'tool.execution':
        out.push({ ...base, id: newId('tool_exec'), type: 'tool.execution', name: input.name, arguments: input.arguments, info: input.info ?? {}, agent_id: input.agent_id ?? null, model: input.model ?? null });
        break;
      case 'agent.handoff':
        out.push({ ...base, id: newId('handoff'), type: 'agent.handoff', previous_agent_id: input.previous_agent_id, previous_agent_name: input.previous_agent_name, next_agent_id: input.next_agent_id, next_agent_name: input.next_agent_name });
        break;
      default:
        throw invalidField(['body', 'inputs', index, 'type'], `Unknown entry type '${String(type)}'`);
    }
  });
  return out;
}

function checkConfirmations(confirmations: Array<{ tool_call_id: string }>, history: ConversationEntry[]): void {
  confirmations.forEach((c, i) => {
    if (!history.some((e) => e.type === 'function.call' && e.tool_call_id === c.tool_call_id)) {
      throw invalidField(['body', 'tool_confirmations', i, 'tool_call_id'], `No tool call '${c.tool_call_id}' awaits confirmation in this conversation`, 'value_error', c.tool_call_id);
    }
  });
}

/** The speaker of a conversation started with a model: its model, instructions, tools and completion args. */
function modelSpeaker(m: ModelConversation): Speaker {
  return { kind: 'model', model: m.model, instructions: m.instructions ?? null, tools: m.tools ?? [], completionArgs: m.completion_args ?? {} };
}
