/**
 * How a chat's turns reach the platform, shaped like the AI SDK's `ChatTransport`: `open` sends a turn
 * (start, append to or restart a conversation) and streams its reply; `reconnect` carries on a reply
 * from a stored resume point (issue 16: the relay keeps a streaming reply for a while); `recoverGone`
 * reads the server's history when the relay no longer has it. I/O only: ChatSession decides which
 * turn to send and what its state becomes.
 */
import type { CachedEntry, ChatSessionOptions, ConversationStream, InflightReply, ParleyClientApi } from './contracts.js';
import type { ConversationEntry, ConversationInputs } from './types.js';
import { isInputEntry, toInput } from './chat-entries.js';

/** One request that produces a reply; `inputIds` are the page-made entries (in the state) it sends. */
export type Turn = { inputIds: string[] } & (
  | { kind: 'start'; inputs: ConversationInputs }
  | { kind: 'append'; conversationId: string; inputs: ConversationInputs }
  | { kind: 'restart'; conversationId: string; fromEntryId: string; inputs?: ConversationInputs }
  /** A reply streaming when the page last saw it, resumed from the relay (`locked`: the stream lock is held already). */
  | { kind: 'resume'; conversationId: string; from: InflightReply; locked: boolean }
);

/** The turn that sends these page-made entries: appended to `conversationId`, or starting a conversation. */
export function inputTurn(conversationId: string | null, entries: readonly CachedEntry[]): Turn {
  const inputs = entries.map(toInput);
  const inputIds = entries.map((e) => e.id);
  return conversationId ? { kind: 'append', conversationId, inputs, inputIds } : { kind: 'start', inputs, inputIds };
}

/** What the transport needs of the session's options: the client's conversation calls, and how a conversation starts (agent or model). */
export interface TransportOptions
  extends Pick<ChatSessionOptions, 'agentId' | 'agentVersion' | 'model' | 'instructions' | 'handoffExecution' | 'toolDefinitions'> {
  client: { readonly conversations: Pick<ParleyClientApi['conversations'], 'start' | 'append' | 'restart' | 'resume' | 'history'> };
}

export class ConversationTransport {
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  /** Whether a reply can be resumed from a stored point (the client talks to a relay that keeps replies). */
  get canReconnect(): boolean {
    return !!this.#options.client.conversations.resume;
  }

  /** Sends `turn` and streams its reply (a `resume` turn reconnects). */
  open(turn: Turn, signal: AbortSignal): ConversationStream {
    const { client, agentId, agentVersion, model, instructions, handoffExecution, toolDefinitions } = this.#options;
    const handoff = handoffExecution ? { handoff_execution: handoffExecution } : {};
    switch (turn.kind) {
      case 'start':
        return client.conversations.start({
          inputs: turn.inputs,
          ...(agentId
            ? { agent_id: agentId, ...(agentVersion != null ? { agent_version: agentVersion } : {}) }
            : { model: model ?? null, ...(instructions ? { instructions } : {}), ...(toolDefinitions?.length ? { tools: toolDefinitions } : {}) }),
          ...handoff,
        }, { signal });
      case 'append':
        return client.conversations.append(turn.conversationId, { inputs: turn.inputs, ...handoff }, { signal });
      case 'restart':
        return client.conversations.restart(turn.conversationId, {
          from_entry_id: turn.fromEntryId, ...(turn.inputs !== undefined ? { inputs: turn.inputs } : {}), ...handoff,
        }, { signal });
      case 'resume':
        return this.reconnect(turn.from, signal);
    }
  }

  /** Carries on the reply streaming at `point` (see {@link canReconnect}). */
  reconnect(point: InflightReply, signal: AbortSignal): ConversationStream {
    return this.#options.client.conversations.resume!({ streamId: point.streamId, lastEventId: point.lastEventId, conversationId: point.conversationId }, { signal });
  }

  /**
   * The relay no longer has the reply (410): the server stored it when it ended. Its history when the
   * reply (`entryId`, else the last entry) is complete there; null when it is not, or cannot be read.
   */
  async recoverGone(conversationId: string, entryId: string | null): Promise<ConversationEntry[] | null> {
    let history: ConversationEntry[];
    try {
      history = (await this.#options.client.conversations.history(conversationId)).entries;
    } catch {
      return null;
    }
    const last = history.at(-1);
    const reply = entryId ? history.find((e) => e.id === entryId) : last;
    return last && !isInputEntry(last) && last.completed_at && (!reply || reply.completed_at) ? history : null;
  }
}
