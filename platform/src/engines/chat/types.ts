import type { CompletionArgs, ConversationEntry, ModelCard, Tool, ToolReferenceChunk } from 'parley-kit/types';

/** An agent the current speaker may hand the conversation to. */
export interface HandoffTarget { id: string; name: string; description: string | null }

/**
 * What an attachment of the conversation says, read by the platform before the turn (images through OCR, PDFs
 * through their text layer, OCR where a page has none). Lines of a page stay lines (`\n`), paragraphs are
 * separated by blank lines; the text is markdown as the OCR engine writes it (headings, lists, tables).
 */
export interface ReadDocument {
  /** `image` for an `image_url` chunk, `pdf` for a `document_url` one. */
  kind: 'image' | 'pdf';
  /** The chunk's `document_name`, or null (images have none). Untrusted. */
  name: string | null;
  /** The pages read, in order (0-based `index`). */
  pages: Array<{ index: number; text: string }>;
  /** Pages the document has: more than `pages.length` when only the first ones were read. */
  pageCount: number;
}

/** Everything a chat engine needs to produce one assistant turn. */
export interface ChatTurnRequest {
  /** Model id as the caller named it (already known to be served by this engine). */
  model: string;
  instructions: string | null;
  /** The whole conversation so far, oldest first, including this turn's inputs. */
  history: ConversationEntry[];
  tools: Tool[];
  completionArgs: CompletionArgs;
  /** Agents the current agent may hand off to (empty for model conversations). */
  handoffs: HandoffTarget[];
  /** The agent speaking, or null for a model conversation. */
  agent: { id: string; name: string } | null;
  /**
   * The attachments in view, read (those of the latest user message that has any), for engines with
   * `readsDocuments`; absent or empty when there are none.
   */
  documents?: ReadDocument[];
  /**
   * True when the caller ends the reply with the sources the engine yields (`reference` events become the
   * message's `tool_reference` chunks): conversations. Chat completions leave it unset (their message content is
   * text), and engines then cite nothing.
   */
  cites?: boolean;
  signal: AbortSignal;
}

/**
 * A source the reply quotes, as a `tool_reference` content chunk. `page` (from 1) is Parley's addition beyond the
 * API's documented fields (`tool`, `title`, `url`, `favicon`, `description`): the page of an attached document the
 * passage is on. Clients that do not know it ignore it (the official SDK drops it).
 */
export type SourceReference = ToolReferenceChunk & { page?: number };

/**
 * What an engine yields while it produces a turn, in order.
 * - `text`: a piece of the assistant message.
 * - `function_call`: a piece of a call's JSON arguments; pieces sharing a `toolCallId` form one call.
 * - `reference`: a source the text just streamed quotes (only when the request `cites`); the caller ends the
 *   message with them, in order.
 * - `handoff`: the turn passes to the agent with this id (one of `handoffs`); the engine stops after it.
 * - `usage`: token counts for the turn, yielded once at the end.
 */
export type ChatEngineEvent =
  | { kind: 'text'; delta: string }
  | { kind: 'function_call'; toolCallId: string; name: string; argumentsDelta: string }
  | { kind: 'reference'; reference: SourceReference }
  | { kind: 'handoff'; agentId: string }
  | { kind: 'usage'; promptTokens: number; completionTokens: number };

/** A chat model behind the conversations API. */
export interface ChatEngine {
  /** Model cards this engine serves (ids and aliases are how callers name it). */
  models(): ModelCard[];
  /** Produce one turn. Throwing (or a rejected iteration) ends the turn with an error. */
  run(request: ChatTurnRequest): AsyncIterable<ChatEngineEvent>;
  /** True when the engine uses `documents`: the platform then reads attachments (OCR) before the turn; otherwise it only checks them. */
  readonly readsDocuments?: boolean;
  close?(): Promise<void>;
}
