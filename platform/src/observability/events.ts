/**
 * Completion events: one per chat, agent or FIM completion and per conversation turn the platform serves
 * (what the observability explorer lists, and what from-explorer / from-campaign imports copy into a
 * dataset). Scoped to the workspace of the caller that asked for the completion.
 *
 * An event as answered (ChatCompletionEvent of the observability API): `event_id` (uuid), `correlation_id`
 * (the completion's id, or the conversation's id for a turn), `created_at`, `extra_fields` (model,
 * agent_id, endpoint, stream, conversation_id, user_id, finish_reason), token counts, `enabled_tools`,
 * `request_messages` and `response_messages` (chat-completion message objects), `nb_messages` and
 * `chat_transcription_events` (always empty here). The preview leaves out the tools and messages.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { isoNow } from '../http/ids.js';

export type ExtraFieldValue = string | number | boolean | string[] | null;

export interface CompletionEventPreview {
  event_id: string;
  correlation_id: string;
  created_at: string;
  extra_fields: Record<string, ExtraFieldValue>;
  nb_input_tokens: number;
  nb_output_tokens: number;
}

export type EventMessage = Record<string, unknown>;

export interface CompletionEvent extends CompletionEventPreview {
  enabled_tools: Array<Record<string, unknown>>;
  request_messages: EventMessage[];
  response_messages: EventMessage[];
  nb_messages: number;
  chat_transcription_events: never[];
}

/** What a completion leaves to record (the store adds the id and the time). */
export interface NewCompletionEvent {
  workspaceId: string;
  userId: string;
  correlationId: string;
  endpoint: string;
  model: string;
  agentId: string | null;
  conversationId: string | null;
  stream: boolean;
  finishReason: string | null;
  tools: unknown[];
  requestMessages: EventMessage[];
  responseMessages: EventMessage[];
  promptTokens: number;
  completionTokens: number;
}

export const toPreview = (e: CompletionEvent): CompletionEventPreview => ({
  event_id: e.event_id, correlation_id: e.correlation_id, created_at: e.created_at, extra_fields: e.extra_fields,
  nb_input_tokens: e.nb_input_tokens, nb_output_tokens: e.nb_output_tokens,
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class CompletionEventStore {
  constructor(private readonly db: Db) {}

  async record(input: NewCompletionEvent): Promise<CompletionEvent> {
    const event: CompletionEvent = {
      event_id: randomUUID(),
      correlation_id: input.correlationId,
      created_at: isoNow(),
      extra_fields: {
        model: input.model, agent_id: input.agentId, endpoint: input.endpoint, stream: input.stream,
        conversation_id: input.conversationId, user_id: input.userId, finish_reason: input.finishReason,
      },
      nb_input_tokens: input.promptTokens,
      nb_output_tokens: input.completionTokens,
      enabled_tools: input.tools.filter(isObject),
      request_messages: input.requestMessages,
      response_messages: input.responseMessages,
      nb_messages: input.requestMessages.length + input.responseMessages.length,
      chat_transcription_events: [],
    };
    await this.db.query(
      `insert into completion_events (id, workspace_id, user_id, correlation_id, created_at, record) values ($1, $2, $3, $4, $5, $6)`,
      [event.event_id, input.workspaceId, input.userId, event.correlation_id, event.created_at, event],
    );
    return event;
  }

  async get(workspaceId: string, id: string): Promise<CompletionEvent | null> {
    const { rows } = await this.db.query<{ record: CompletionEvent }>(
      'select record from completion_events where id = $1 and workspace_id = $2', [id, workspaceId]);
    return rows[0]?.record ?? null;
  }

  /** The events among `ids` the workspace has, in the order of `ids` (unknown ids are left out). */
  async getMany(workspaceId: string, ids: readonly string[]): Promise<CompletionEvent[]> {
    const { rows } = await this.db.query<{ record: CompletionEvent }>(
      'select record from completion_events where id = any($1::text[]) and workspace_id = $2', [ids, workspaceId]);
    const byId = new Map(rows.map((r) => [r.record.event_id, r.record]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Every event of the workspace, newest first. */
  async all(workspaceId: string): Promise<CompletionEvent[]> {
    const { rows } = await this.db.query<{ record: CompletionEvent }>(
      'select record from completion_events where workspace_id = $1 order by seq desc', [workspaceId]);
    return rows.map((r) => r.record);
  }
}
