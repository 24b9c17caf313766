/**
 * Wire types of the platform HTTP API: the one contract shared by the client, the relay and the
 * local platform. Field names are the wire's (snake_case); shapes follow the public API reference.
 * Pure types: importing this module costs nothing at run time.
 */

/** ISO-8601 date-time with `Z`, e.g. `2025-06-16T09:19:56.901953Z`. */
export type Timestamp = string;

// ---------------------------------------------------------------- content chunks

export interface TextChunk { type: 'text'; text: string }
export interface ImageUrlChunk {
  type: 'image_url';
  image_url: string | { url: string; detail?: 'low' | 'auto' | 'high' | null };
}
export interface DocumentUrlChunk { type: 'document_url'; document_url: string; document_name?: string | null }
export interface ToolFileChunk { type: 'tool_file'; tool: string; file_id: string; file_name?: string | null; file_type?: string | null }
export interface ToolReferenceChunk {
  type: 'tool_reference'; tool: string; title: string; url?: string | null; favicon?: string | null; description?: string | null;
}
export interface ReferenceChunk { type: 'reference'; reference_ids: Array<number | string> }
export interface ThinkingChunk {
  type: 'thinking'; thinking: Array<TextChunk | ToolReferenceChunk | ReferenceChunk>; signature?: string | null; closed?: boolean;
}
export type InputContentChunk = TextChunk | ImageUrlChunk | DocumentUrlChunk | ToolFileChunk | ThinkingChunk;
export type OutputContentChunk = InputContentChunk | ToolReferenceChunk;

// ---------------------------------------------------------------- entries

interface EntryBase {
  object: 'entry';
  id: string;
  created_at: Timestamp;
  completed_at?: Timestamp | null;
}

export interface MessageInputEntry extends EntryBase {
  type: 'message.input';
  role: 'user' | 'assistant';
  content: string | InputContentChunk[];
  prefix?: boolean;
}
export interface MessageOutputEntry extends EntryBase {
  type: 'message.output';
  role: 'assistant';
  content: string | OutputContentChunk[];
  agent_id: string | null;
  model: string | null;
}
export interface FunctionCallEntry extends EntryBase {
  type: 'function.call';
  tool_call_id: string;
  name: string;
  arguments: string;
  agent_id?: string | null;
  model?: string | null;
  confirmation_status?: 'pending' | 'allowed' | 'denied' | null;
}
export interface FunctionResultEntry extends EntryBase {
  type: 'function.result';
  tool_call_id: string;
  result: string;
}
export interface ToolExecutionEntry extends EntryBase {
  type: 'tool.execution';
  name: string;
  arguments: string;
  info?: Record<string, unknown>;
  agent_id?: string | null;
  model?: string | null;
}
export interface AgentHandoffEntry extends EntryBase {
  type: 'agent.handoff';
  previous_agent_id: string;
  previous_agent_name: string;
  next_agent_id: string;
  next_agent_name: string;
}
export type ConversationEntry =
  | MessageInputEntry | MessageOutputEntry | FunctionCallEntry
  | FunctionResultEntry | ToolExecutionEntry | AgentHandoffEntry;
export type OutputEntry = MessageOutputEntry | FunctionCallEntry | ToolExecutionEntry | AgentHandoffEntry;

// ---------------------------------------------------------------- tools, args, guardrails

export interface ToolConfiguration { exclude?: string[] | null; include?: string[] | null; requires_confirmation?: string[] | null }
export interface FunctionDefinition { name: string; parameters: Record<string, unknown>; description?: string; strict?: boolean }
export type Tool =
  | { type: 'function'; function: FunctionDefinition }
  | { type: 'web_search' | 'web_search_premium' | 'code_interpreter' | 'image_generation'; tool_configuration?: ToolConfiguration | null }
  | { type: 'document_library'; library_ids: string[]; tool_configuration?: ToolConfiguration | null }
  | { type: 'connector'; connector_id: string; authorization?: { type: 'oauth2-token' | 'api-key'; value: string } | null; tool_configuration?: ToolConfiguration | null };

export interface ResponseFormat {
  type?: 'text' | 'json_object' | 'json_schema';
  json_schema?: { name: string; schema: Record<string, unknown>; description?: string | null; strict?: boolean } | null;
}
export interface CompletionArgs {
  stop?: string | string[] | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  random_seed?: number | null;
  prediction?: { type?: 'content'; content?: string } | null;
  response_format?: ResponseFormat | null;
  tool_choice?: 'auto' | 'none' | 'any' | 'required';
  reasoning_effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | null;
}
export interface GuardrailConfig {
  block_on_error?: boolean;
  moderation_llm_v1?: Record<string, unknown> | null;
  moderation_llm_v2?: Record<string, unknown> | null;
}

// ---------------------------------------------------------------- conversations

export interface ConversationUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  connector_tokens?: number | null;
  connectors?: Record<string, number> | null;
}

interface ConversationRecordBase {
  object: 'conversation';
  id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  name?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
}
export interface ModelConversation extends ConversationRecordBase {
  model: string;
  instructions?: string | null;
  tools?: Tool[];
  completion_args?: CompletionArgs;
  guardrails?: GuardrailConfig[] | null;
}
export interface AgentConversation extends ConversationRecordBase {
  agent_id: string;
  agent_version?: string | number | null;
}
export type Conversation = ModelConversation | AgentConversation;

export interface ConversationResponse {
  object: 'conversation.response';
  conversation_id: string;
  outputs: OutputEntry[];
  usage: ConversationUsage;
  guardrails?: Array<Record<string, unknown>> | null;
}
export interface ConversationHistory { object: 'conversation.history'; conversation_id: string; entries: ConversationEntry[] }
export interface ConversationMessages {
  object: 'conversation.messages';
  conversation_id: string;
  messages: Array<MessageInputEntry | MessageOutputEntry>;
}

/** An input entry as a caller may send it: `object`, `type`, `id` and timestamps are optional. */
export type InputEntry =
  | ({ type?: 'message.input'; object?: 'entry'; role: 'user' | 'assistant'; content: string | InputContentChunk[]; prefix?: boolean })
  | ({ type: 'message.output'; object?: 'entry'; role?: 'assistant'; content: string | OutputContentChunk[] })
  | ({ type: 'function.call'; object?: 'entry'; tool_call_id: string; name: string; arguments: string | Record<string, unknown> })
  | ({ type: 'function.result'; object?: 'entry'; tool_call_id: string; result: string })
  | ({ type: 'tool.execution'; object?: 'entry'; name: string; arguments: string; info?: Record<string, unknown> })
  | ({ type: 'agent.handoff'; object?: 'entry'; previous_agent_id: string; previous_agent_name: string; next_agent_id: string; next_agent_name: string });
export type ConversationInputs = string | InputEntry[];

export type HandoffExecution = 'client' | 'server';

export interface StartConversationRequest {
  inputs: ConversationInputs;
  stream?: boolean | null;
  store?: boolean | null;
  handoff_execution?: HandoffExecution | null;
  instructions?: string | null;
  tools?: Tool[] | null;
  completion_args?: CompletionArgs | null;
  guardrails?: GuardrailConfig[] | null;
  name?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  agent_id?: string | null;
  agent_version?: string | number | null;
  model?: string | null;
}
export interface AppendConversationRequest {
  inputs?: ConversationInputs;
  stream?: boolean;
  store?: boolean;
  handoff_execution?: HandoffExecution;
  completion_args?: CompletionArgs;
  tool_confirmations?: Array<{ tool_call_id: string; confirmation: 'allow' | 'deny' }> | null;
}
export interface RestartConversationRequest {
  inputs?: ConversationInputs;
  stream?: boolean;
  store?: boolean;
  handoff_execution?: HandoffExecution;
  completion_args?: CompletionArgs;
  guardrails?: GuardrailConfig[] | null;
  metadata?: Record<string, unknown> | null;
  agent_version?: string | number | null;
  from_entry_id: string;
}

// ---------------------------------------------------------------- conversation stream events

interface EventBase { created_at?: Timestamp }
export interface ResponseStartedEvent extends EventBase { type: 'conversation.response.started'; conversation_id: string }
export interface MessageOutputDeltaEvent extends EventBase {
  type: 'message.output.delta';
  id: string;
  content: string | OutputContentChunk;
  output_index: number;
  content_index: number;
  model: string | null;
  agent_id: string | null;
  role: 'assistant';
}
export interface ToolExecutionStartedEvent extends EventBase {
  type: 'tool.execution.started'; id: string; name: string; arguments: string; output_index: number; model?: string | null; agent_id?: string | null;
}
export interface ToolExecutionDeltaEvent extends EventBase {
  type: 'tool.execution.delta'; id: string; name: string; arguments: string; output_index: number;
}
export interface ToolExecutionDoneEvent extends EventBase {
  type: 'tool.execution.done'; id: string; name: string; info: Record<string, unknown>; output_index: number;
}
export interface FunctionCallDeltaEvent extends EventBase {
  type: 'function.call.delta';
  id: string;
  name: string;
  tool_call_id: string;
  arguments: string;
  output_index: number;
  model: string | null;
  agent_id: string | null;
  confirmation_status?: 'pending' | 'allowed' | 'denied' | null;
}
export interface AgentHandoffStartedEvent extends EventBase {
  type: 'agent.handoff.started'; id: string; previous_agent_id: string; previous_agent_name: string; output_index: number;
}
export interface AgentHandoffDoneEvent extends EventBase {
  type: 'agent.handoff.done'; id: string; next_agent_id: string; next_agent_name: string; output_index: number;
}
export interface ResponseDoneEvent extends EventBase { type: 'conversation.response.done'; usage: ConversationUsage }
export interface ResponseErrorEvent extends EventBase { type: 'conversation.response.error'; message: string; code: number }

export type ConversationEvent =
  | ResponseStartedEvent | MessageOutputDeltaEvent
  | ToolExecutionStartedEvent | ToolExecutionDeltaEvent | ToolExecutionDoneEvent
  | FunctionCallDeltaEvent | AgentHandoffStartedEvent | AgentHandoffDoneEvent
  | ResponseDoneEvent | ResponseErrorEvent;
export type ConversationEventType = ConversationEvent['type'];

// ---------------------------------------------------------------- agents

/** What an agent is made of: what a create request sends, and what an agent carries besides its ids and dates. */
export interface CreateAgentRequest {
  model: string;
  name: string;
  instructions?: string | null;
  tools?: Tool[];
  completion_args?: CompletionArgs;
  guardrails?: GuardrailConfig[] | null;
  description?: string | null;
  handoffs?: string[] | null;
  metadata?: Record<string, unknown> | null;
  version_message?: string | null;
}
export interface Agent extends CreateAgentRequest {
  object: 'agent';
  id: string;
  version: number;
  versions: number[];
  owner_id?: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deployment_chat: boolean;
  source: string;
}
export type UpdateAgentRequest = Partial<CreateAgentRequest> & { deployment_chat?: boolean | null };
export interface AgentAlias { alias: string; version: number; created_at: Timestamp; updated_at: Timestamp }
export interface AgentPage { object: 'list'; data: Agent[]; next_page_token: string | null }

// ---------------------------------------------------------------- models

export interface ModelCapabilities {
  completion_chat: boolean;
  function_calling: boolean;
  reasoning: boolean;
  completion_fim: boolean;
  fine_tuning: boolean;
  vision: boolean;
  ocr: boolean;
  classification: boolean;
  moderation: boolean;
  audio: boolean;
  audio_transcription: boolean;
  audio_transcription_realtime: boolean;
  audio_speech: boolean;
  unified_resources: boolean;
}
/** A model as `GET /v1/models` lists it: a base model, or a fine-tuned one (FTModelCard). */
export type ModelCard = BaseModelCard | FineTunedModelCard;
export interface BaseModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  capabilities: ModelCapabilities;
  name: string | null;
  description: string | null;
  max_context_length: number;
  aliases: string[];
  deprecation: Timestamp | null;
  deprecation_replacement_model: string | null;
  default_model_temperature: number | null;
  type: 'base';
}
/** A fine-tuned model: its job, the base model it was trained from (`root`), and whether it is archived. */
export interface FineTunedModelCard extends Omit<BaseModelCard, 'type'> {
  type: 'fine-tuned';
  job: string;
  root: string;
  archived: boolean;
}
export interface ModelList { object: 'list'; data: ModelCard[] }

// ---------------------------------------------------------------- speech (POST /v1/audio/speech, GET /v1/audio/voices)

/** Audio formats of `POST /v1/audio/speech`: `pcm` is raw float32 little-endian mono at 24 kHz (no header). */
export type SpeechFormat = 'pcm' | 'wav' | 'mp3' | 'flac' | 'opus';

/** Body of `POST /v1/audio/speech`; extra properties are allowed by the API. */
export interface SpeechRequest {
  /** The text to speak. */
  input: string;
  model?: string | null;
  /** A saved or preset voice id. */
  voice_id?: string | null;
  /** Default `mp3` on the platform. */
  response_format?: SpeechFormat;
  stream?: boolean;
  metadata?: Record<string, unknown> | null;
}

/** `usage` of `speech.audio.done`. */
export interface SpeechUsage { prompt_tokens: number; completion_tokens: number; total_tokens: number }

/** JSON answer of `POST /v1/audio/speech`: base64 of the whole file. */
export interface SpeechResponse { audio_data: string }

export interface SpeechAudioDeltaEvent { type: 'speech.audio.delta'; audio_data: string }
export interface SpeechAudioDoneEvent { type: 'speech.audio.done'; usage: SpeechUsage }
export type SpeechEvent = SpeechAudioDeltaEvent | SpeechAudioDoneEvent;

/** A voice of `GET /v1/audio/voices`. */
export interface Voice {
  id: string;
  name: string;
  slug?: string | null;
  languages?: string[] | null;
  gender?: string | null;
  age?: number | null;
  tags?: string[] | null;
  color?: string | null;
  description?: string | null;
  retention_notice?: number;
  created_at: Timestamp;
  user_id: string | null;
  trimmed_seconds?: number | null;
}

/** A page of `GET /v1/audio/voices`. */
export interface VoiceList { items: Voice[]; total: number; page: number; page_size: number; total_pages: number }

/** A segment of a transcription (`timestamp_granularities` asked); times in seconds. */
export interface TranscriptionSegment {
  type: 'transcription_segment';
  text: string;
  start: number;
  end: number;
  score?: number | null;
  speaker_id?: string | null;
}

/** `usage` of a transcription. */
export interface TranscriptionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_audio_seconds?: number | null;
}

/** JSON answer of `POST /v1/audio/transcriptions` (multipart form request). */
export interface TranscriptionResponse {
  model: string;
  text: string;
  language: string | null;
  segments: TranscriptionSegment[];
  usage: TranscriptionUsage;
}

export interface TranscriptionLanguageEvent { type: 'transcription.language'; audio_language: string }
export interface TranscriptionTextDeltaEvent { type: 'transcription.text.delta'; text: string }
export interface TranscriptionSegmentEvent { type: 'transcription.segment'; text: string; start: number; end: number; speaker_id?: string | null }
export interface TranscriptionDoneEvent extends TranscriptionResponse { type: 'transcription.done' }
export type TranscriptionStreamEvent = TranscriptionLanguageEvent | TranscriptionTextDeltaEvent | TranscriptionSegmentEvent | TranscriptionDoneEvent;

// ---------------------------------------------------------------- realtime transcription (WebSocket, reference §5.3–5.4)

export type RealtimeAudioEncoding = 'pcm_s16le' | 'pcm_s32le' | 'pcm_f16le' | 'pcm_f32le' | 'pcm_mulaw' | 'pcm_alaw';
export interface RealtimeAudioFormat { encoding: RealtimeAudioEncoding; sample_rate: number }
/** `session` of `session.created` / `session.updated`. */
export interface RealtimeSessionInfo { request_id: string; model: string; audio_format: RealtimeAudioFormat; target_streaming_delay_ms?: number | null }
export interface RealtimeSessionEvent { type: 'session.created' | 'session.updated'; session: RealtimeSessionInfo }
export interface RealtimeErrorEvent { type: 'error'; error: { message: string | Record<string, unknown>; code: number } }
/** Server → client messages of the realtime WebSocket. */
export type RealtimeServerEvent = RealtimeSessionEvent | RealtimeErrorEvent | TranscriptionStreamEvent;
/** Client → server messages of the realtime WebSocket. */
export type RealtimeClientMessage =
  | { type: 'session.update'; session: { audio_format?: RealtimeAudioFormat; target_streaming_delay_ms?: number | null } }
  | { type: 'input_audio.append'; audio: string }
  | { type: 'input_audio.flush' }
  | { type: 'input_audio.end' };

/** `POST /v1/client/sessions` body: a short-lived `rt_` secret for a browser WebSocket. */
export interface ClientSessionRequest { purpose: 'realtime'; model: string; ttl_seconds?: number | null }
/** `POST /v1/client/sessions` answer (201). */
export interface ClientSessionResponse {
  object: 'client.session';
  purpose: 'realtime';
  expires_at: string;
  client_secret: { value: string; expires_at: string };
}

// ---------------------------------------------------------------- OCR (`POST /v1/ocr`, reference §6)

export type OcrDocument =
  | { type: 'document_url'; document_url: string; document_name?: string | null }
  | { type: 'image_url'; image_url: string | { url: string; detail?: string | null } }
  | { type: 'file'; file_id: string };

export interface OcrRequest {
  model: string | null;
  document: OcrDocument;
  id?: string;
  /** 0-based: `"0,2-4"` or `[0, 2, 3, 4]`; null = all. */
  pages?: string | number[] | null;
  include_image_base64?: boolean | null;
  image_limit?: number | null;
  image_min_size?: number | null;
  table_format?: 'markdown' | 'html' | null;
  extract_header?: boolean;
  extract_footer?: boolean;
}

export interface OcrImage {
  /** e.g. `img-0.jpeg`, referenced from the page markdown as `![img-0.jpeg](img-0.jpeg)`. */
  id: string;
  top_left_x: number | null;
  top_left_y: number | null;
  bottom_right_x: number | null;
  bottom_right_y: number | null;
  /** A full `data:image/…;base64,…` URL when `include_image_base64` was asked. */
  image_base64?: string | null;
  image_annotation?: string | null;
}

export interface OcrPageDimensions { dpi: number; height: number; width: number }

export interface OcrTable { id: string; content: string; format: 'markdown' | 'html' }

export interface OcrPage {
  /** 0-based page number in the document. */
  index: number;
  markdown: string;
  images: OcrImage[];
  dimensions: OcrPageDimensions | null;
  tables?: OcrTable[];
  hyperlinks?: string[];
  header?: string | null;
  footer?: string | null;
}

export interface OcrUsageInfo { pages_processed: number; doc_size_bytes: number | null }

export interface OcrResponse {
  pages: OcrPage[];
  model: string;
  document_annotation: string | null;
  usage_info: OcrUsageInfo;
}

// ---------------------------------------------------------------- connectors (`/v1/connectors`, reference §9)

/** Who owns a connector or a set of credentials, as answers name the levels. */
export type ConnectorConsumerType = 'user' | 'workspace' | 'org';
export type ConnectorVisibility = 'private' | 'shared_workspace' | 'shared_org';

export interface ConnectorAuthHeader { name: string; is_required: boolean; is_secret: boolean }

/** An authentication method of a connector (`PublicAuthenticationMethod`); secret header values are masked. */
export interface ConnectorAuthMethod {
  method_type: 'oauth2' | 'bearer' | 'none' | (string & {});
  headers: ConnectorAuthHeader[] | null;
  global_headers: Record<string, { is_secret: boolean; value: string }>;
  has_default_credentials: boolean;
  grant_type?: 'authorization_code' | 'client_credentials';
  oauth2_server_metadata?: Record<string, unknown> | null;
}

/** Stored credentials as answered (`AuthenticationConfiguration`): never the secret itself. */
export interface ConnectorCredentials {
  name: string;
  title: string | null;
  authentication_type: string;
  scope: ConnectorConsumerType;
  status: null;
  is_default: boolean;
  creator_id: string;
}

/** An MCP connector (`MCPConnector`) as the caller sees it: `active`/`blocked_by` are the caller's. */
export interface Connector {
  id: string;
  name: string;
  title: string | null;
  description: string;
  created_at: Timestamp;
  modified_at: Timestamp;
  server: string;
  icon_url: string | null;
  owner_type: ConnectorConsumerType;
  owner_id: string;
  visibility: ConnectorVisibility;
  creator_id: string;
  system_prompt: string | null;
  supported_auth_methods: ConnectorAuthMethod[];
  /** The caller's usable credentials with `fetch_user_data=true`, else null. */
  connection_credentials: ConnectorCredentials[] | null;
  active: boolean;
  blocked_by: ConnectorConsumerType[];
  private_tool_execution: boolean;
  mistral: boolean;
  is_authenticated: boolean;
  tools: null;
  protocol: 'mcp';
}

export interface ConnectorPage { items: Connector[]; pagination: { page_size: number; next_cursor: string | null } }

/** Answer of connector mutations (delete, share, activate, credentials). */
export interface MessageResponse { message: string }

// ---------------------------------------------------------------- errors

/** One item of a 422 body (FastAPI style). */
export interface ValidationIssue { loc: Array<string | number>; msg: string; type: string; input?: unknown; ctx?: Record<string, unknown> }
export interface HTTPValidationError { detail: ValidationIssue[] }
export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'rate_limit_error' | 'server_error' | (string & {});
export interface GenericErrorBody { object: 'error'; message: string; type: ErrorType; param: string | null; code: string | null }
