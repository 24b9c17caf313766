/**
 * One assistant turn of a conversation: runs the chat engine of whoever is speaking, turns its
 * events into output entries and stream events, and follows handoffs when the server executes them.
 *
 * Connector tools (`{type:"connector"}`) are run here, by the platform: their MCP tools are offered to
 * the engine as functions; a call to one becomes a `tool.execution` entry (with `tool.execution.started`
 * / `.done` events) instead of a `function.call`, and the engine runs again with the result, so the turn
 * ends with the engine's answer. The engine sees each execution as a function call and its result.
 * `usage.connectors` counts executions per connector name; `usage.connector_tokens` counts the tokens
 * of the tool results fed back to the engine. The sources the engine itself quotes (`reference` events:
 * parley-local's answers about attachments, each with its `page`) end its message the same way as the library's,
 * one `tool_reference` chunk and one `message.output.delta` each.
 */
import type {
  Agent, AgentHandoffEntry, CompletionArgs, ConversationEntry, ConversationEvent, ConversationUsage,
  FunctionCallEntry, HandoffExecution, MessageOutputEntry, OutputEntry, Tool, ToolExecutionEntry, ToolReferenceChunk, OutputContentChunk,
} from 'parley-kit/types';
import type { Caller } from '../http/caller.js';
import type { PlatformContext } from '../http/context.js';
import type { ConnectorToolbox } from '../connectors/toolbox.js';
import { openServerTools } from './server-tools.js';
import { countTokens } from '../engines/text/tokenizer.js';
import type { ChatEngine, HandoffTarget, ReadDocument } from '../engines/chat/types.js';
import { isoNow, newId } from '../http/ids.js';

/** Who produces the turn: an agent at a version, or a bare model with its own settings. */
export type Speaker =
  | { kind: 'agent'; agent: Agent }
  | { kind: 'model'; model: string; instructions: string | null; tools: Tool[]; completionArgs: CompletionArgs };

export interface TurnRequest {
  speaker: Speaker;
  /** History before this turn plus this turn's input entries. */
  history: ConversationEntry[];
  /** The attachments in view, read (ocr/attachments.ts), for engines that read them. */
  documents?: ReadDocument[];
  /** Completion args given with this request; they override the speaker's. */
  completionArgs?: CompletionArgs | null;
  handoffExecution: HandoffExecution;
  signal: AbortSignal;
  /** Called for every stream event as it happens (streamed turns). */
  emit?: (event: ConversationEvent) => Promise<void> | void;
  /** Who asked: connector tools are used as this caller (visibility, activation, credentials). */
  caller: Caller;
}

export interface TurnResult {
  outputs: OutputEntry[];
  usage: ConversationUsage;
  /** The agent speaking after this turn (changes on handoff), or null for model conversations. */
  activeAgentId: string | null;
  /** Set when the engine failed or the caller went away; `outputs` holds what was produced before. */
  error?: { message: string; aborted: boolean };
}

/** Handoffs in one turn beyond this are refused, so two agents cannot pass the turn forever. */
const MAX_HANDOFFS_PER_TURN = 5;
/** Rounds of connector tool calls in one turn beyond this end the turn, so a model cannot loop forever. */
const MAX_CONNECTOR_ROUNDS = 5;

export async function runTurn(ctx: PlatformContext, req: TurnRequest): Promise<TurnResult> {
  // Connector toolboxes hold MCP sessions for the turn: end them however the turn ends.
  const toolboxes: ConnectorToolbox[] = [];
  try {
    return await turn(ctx, req, toolboxes);
  } finally {
    await Promise.all(toolboxes.map((t) => t.close()));
  }
}

async function turn(ctx: PlatformContext, req: TurnRequest, toolboxes: ConnectorToolbox[]): Promise<TurnResult> {
  const outputs: OutputEntry[] = [];
  const usage: ConversationUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, connector_tokens: null, connectors: null };
  let speaker = req.speaker;
  let handoffs = 0;
  /** This turn's outputs as the engines see them: a tool execution is a function call and its result. */
  const seen: ConversationEntry[] = [];
  const emit = async (event: ConversationEvent) => { await req.emit?.(event); };

  /** Ends `message` with the sources it answers from (one `message.output.delta` per chunk, as the real API streams them). */
  const cite = async (message: MessageOutputEntry, refs: ToolReferenceChunk[]) => {
    const text = typeof message.content === 'string' ? message.content : null;
    const chunks: OutputContentChunk[] = text === null ? [...(message.content as OutputContentChunk[])] : text ? [{ type: 'text', text }] : [];
    for (const ref of refs) {
      chunks.push(ref);
      await emit({
        type: 'message.output.delta', id: message.id, content: ref, output_index: outputs.indexOf(message), content_index: chunks.length - 1,
        model: message.model ?? null, agent_id: message.agent_id ?? null, role: 'assistant', created_at: isoNow(),
      });
    }
    message.content = chunks;
  };

  const finish = (error?: TurnResult['error']): TurnResult => {
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    for (const entry of outputs) if (!error && entry.completed_at === null) entry.completed_at = isoNow();
    return { outputs, usage, activeAgentId: speaker.kind === 'agent' ? speaker.agent.id : null, ...(error ? { error } : {}) };
  };

  for (;;) {
    const model = speaker.kind === 'agent' ? speaker.agent.model : speaker.model;
    const resolved = ctx.chat.resolve(model);
    if (!resolved) return finish({ message: `Model '${model}' is not served by this platform`, aborted: false });
    const engine: ChatEngine = resolved.engine;
    const modelId = resolved.card.id;
    const agent = speaker.kind === 'agent' ? speaker.agent : null;
    const agentId = agent?.id ?? null;
    const targets = agent ? await handoffTargets(ctx, agent) : [];
    const base = speaker.kind === 'agent' ? speaker.agent.completion_args ?? {} : speaker.completionArgs;
    const declared = (speaker.kind === 'agent' ? speaker.agent.tools : speaker.tools) ?? [];

    let toolbox: ConnectorToolbox | null;
    let tools: Tool[];
    try {
      ({ toolbox, tools } = await openServerTools(ctx, declared, req.caller, req.signal));
      if (toolbox) toolboxes.push(toolbox);
    } catch (err) {
      // Before anything was produced the request itself fails (404, 502…); after a handoff the turn ends with what it has.
      if (outputs.length === 0) throw err;
      return finish({ message: err instanceof Error ? err.message : String(err), aborted: req.signal.aborted });
    }
    /** Sources of this speaker's library searches and of the engine's quotes, cited by the message that follows them. */
    const references: ToolReferenceChunk[] = [];

    let message: MessageOutputEntry | null = null;
    let nextAgentId: string | null = null;

    for (let round = 0; ; round++) {
      const calls = new Map<string, FunctionCallEntry>();
      const connectorCalls = new Map<string, { name: string; arguments: string }>();
      try {
        const events = engine.run({
          model,
          instructions: (speaker.kind === 'agent' ? speaker.agent.instructions : speaker.instructions) ?? null,
          history: [...req.history, ...seen],
          tools,
          completionArgs: { ...base, ...(req.completionArgs ?? {}) },
          handoffs: targets,
          agent: agent ? { id: agent.id, name: agent.name } : null,
          documents: req.documents,
          cites: true,
          signal: req.signal,
        });
        for await (const event of events) {
          if (req.signal.aborted) break;
          switch (event.kind) {
            case 'text': {
              if (!message) {
                message = { object: 'entry', type: 'message.output', id: newId('msg'), created_at: isoNow(), completed_at: null, role: 'assistant', content: '', agent_id: agentId, model: modelId };
                outputs.push(message);
                seen.push(message);
              }
              message.content = (message.content as string) + event.delta;
              await emit({
                type: 'message.output.delta', id: message.id, content: event.delta, output_index: outputs.indexOf(message), content_index: 0,
                model: modelId, agent_id: agentId, role: 'assistant', created_at: isoNow(),
              });
              break;
            }
            case 'function_call': {
              if (toolbox?.has(event.name)) {
                const pending = connectorCalls.get(event.toolCallId) ?? { name: event.name, arguments: '' };
                pending.arguments += event.argumentsDelta;
                connectorCalls.set(event.toolCallId, pending);
                break;
              }
              let call = calls.get(event.toolCallId);
              if (!call) {
                message = null; // text after a call starts a new message entry
                call = { object: 'entry', type: 'function.call', id: newId('fc'), created_at: isoNow(), completed_at: null, tool_call_id: event.toolCallId, name: event.name, arguments: '', agent_id: agentId, model: modelId };
                calls.set(event.toolCallId, call);
                outputs.push(call);
                seen.push(call);
              }
              call.arguments += event.argumentsDelta;
              await emit({
                type: 'function.call.delta', id: call.id, name: call.name, tool_call_id: call.tool_call_id, arguments: event.argumentsDelta,
                output_index: outputs.indexOf(call), model: modelId, agent_id: agentId, created_at: isoNow(),
              });
              break;
            }
            case 'reference':
              // a source the engine's text quotes (parley-local's attachments): cited like the library's
              references.push(event.reference);
              break;
            case 'handoff':
              nextAgentId = event.agentId;
              break;
            case 'usage':
              usage.prompt_tokens += event.promptTokens;
              usage.completion_tokens += event.completionTokens;
              break;
          }
          if (nextAgentId) break;
        }
      } catch (err) {
        if (req.signal.aborted) return finish({ message: 'The request was cancelled', aborted: true });
        return finish({ message: err instanceof Error ? err.message : String(err), aborted: false });
      }
      if (req.signal.aborted) return finish({ message: 'The request was cancelled', aborted: true });
      for (const entry of outputs) if (entry.completed_at === null) entry.completed_at = isoNow();

      if (message && references.length && !nextAgentId) await cite(message, references.splice(0));
      if (nextAgentId || !toolbox || connectorCalls.size === 0) break;
      if (round + 1 >= MAX_CONNECTOR_ROUNDS) {
        return finish({ message: `More than ${MAX_CONNECTOR_ROUNDS} rounds of connector tool calls in one turn; stopping`, aborted: false });
      }
      for (const [toolCallId, call] of connectorCalls) {
        const exec: ToolExecutionEntry = {
          object: 'entry', type: 'tool.execution', id: newId('tool_exec'), created_at: isoNow(), completed_at: null,
          name: call.name, arguments: call.arguments, info: {}, agent_id: agentId, model: modelId,
        };
        outputs.push(exec);
        const outputIndex = outputs.length - 1;
        await emit({ type: 'tool.execution.started', id: exec.id, name: exec.name, arguments: exec.arguments, output_index: outputIndex, model: modelId, agent_id: agentId, created_at: exec.created_at });
        const outcome = await toolbox.run(call.name, call.arguments);
        if (req.signal.aborted) return finish({ message: 'The request was cancelled', aborted: true });
        exec.info = outcome.info;
        exec.completed_at = isoNow();
        await emit({ type: 'tool.execution.done', id: exec.id, name: exec.name, info: outcome.info, output_index: outputIndex, created_at: exec.completed_at });
        seen.push(
          { object: 'entry', type: 'function.call', id: newId('fc'), created_at: exec.created_at, tool_call_id: toolCallId, name: call.name, arguments: call.arguments, agent_id: agentId, model: modelId },
          { object: 'entry', type: 'function.result', id: newId('msg'), created_at: exec.completed_at, tool_call_id: toolCallId, result: outcome.text },
        );
        references.push(...(outcome.references ?? []));
        usage.connector_tokens = (usage.connector_tokens ?? 0) + countTokens(outcome.text);
        usage.connectors = { ...usage.connectors, [outcome.connector]: (usage.connectors?.[outcome.connector] ?? 0) + 1 };
      }
      // Calls the client must answer end the turn; otherwise the engine goes on with the results.
      if (calls.size > 0) break;
      message = null;
    }

    if (!nextAgentId || !agent) break;
    const next = await ctx.agents.get(nextAgentId);
    if (!next || !targets.some((t) => t.id === nextAgentId)) {
      return finish({ message: `The model handed off to '${nextAgentId}', which is not among the agent's handoffs`, aborted: false });
    }
    if (++handoffs > MAX_HANDOFFS_PER_TURN) {
      return finish({ message: `More than ${MAX_HANDOFFS_PER_TURN} handoffs in one turn; stopping`, aborted: false });
    }
    const handoff: AgentHandoffEntry = {
      object: 'entry', type: 'agent.handoff', id: newId('handoff'), created_at: isoNow(), completed_at: null,
      previous_agent_id: agent.id, previous_agent_name: agent.name, next_agent_id: next.id, next_agent_name: next.name,
    };
    outputs.push(handoff);
    seen.push(handoff);
    const outputIndex = outputs.length - 1;
    await emit({ type: 'agent.handoff.started', id: handoff.id, previous_agent_id: agent.id, previous_agent_name: agent.name, output_index: outputIndex, created_at: isoNow() });
    handoff.completed_at = isoNow();
    await emit({ type: 'agent.handoff.done', id: handoff.id, next_agent_id: next.id, next_agent_name: next.name, output_index: outputIndex, created_at: handoff.completed_at });
    speaker = { kind: 'agent', agent: next };
    if (req.handoffExecution === 'client') break;
  }

  if (outputs.length === 0) {
    // The engine produced nothing (max_tokens 0, or a stop sequence at the start): still answer with a message.
    const now = isoNow();
    const agentId = speaker.kind === 'agent' ? speaker.agent.id : null;
    const model = speaker.kind === 'agent' ? speaker.agent.model : speaker.model;
    outputs.push({ object: 'entry', type: 'message.output', id: newId('msg'), created_at: now, completed_at: now, role: 'assistant', content: '', agent_id: agentId, model: ctx.chat.resolve(model)?.card.id ?? model });
  }
  return finish();
}

async function handoffTargets(ctx: PlatformContext, agent: Agent): Promise<HandoffTarget[]> {
  const targets: HandoffTarget[] = [];
  for (const id of agent.handoffs ?? []) {
    if (id === agent.id) continue;
    const target = await ctx.agents.get(id);
    if (target) targets.push({ id: target.id, name: target.name, description: target.description ?? null });
  }
  return targets;
}
