/**
 * Contracts between the browser layers: what the client, the history store and a chat session
 * promise each other and the elements. Pure types (no run-time code); implementations live in
 * client.ts, chat-session.ts (src/client) and history-store.ts (src/store).
 */
import type {
  AgentConversation, Agent, AppendConversationRequest, ConversationEntry, ConversationEvent, ConversationHistory,
  ConversationMessages, ModelConversation, ModelList, RestartConversationRequest, StartConversationRequest, Tool, ValidationIssue, SpeechFormat, SpeechRequest, SpeechUsage, Voice, VoiceList,
  RealtimeServerEvent, RealtimeSessionInfo, TranscriptionResponse, TranscriptionStreamEvent, OcrResponse, InputContentChunk,
} from './types.js';
export type { SpeechFormat, SpeechRequest, SpeechUsage } from './types.js';

// ---------------------------------------------------------------- relay session (wire)

/** `POST {relay}/session` answer. `resume_token` lets the same visitor get a token for the same session after a reload. */
export interface SessionResponse {
  token: string;
  /** ISO date-time with Z. */
  expires_at: string;
  session_id: string;
  /** Long-lived, only accepted by `POST {relay}/session` (body `{resume_token}`) from an allowed origin. */
  resume_token: string;
  /** Optional routes the relay serves for this session, e.g. `feedback` (`POST {relay}/v1/conversations/{id}/feedback`). */
  features?: string[];
}

// ---------------------------------------------------------------- client

/** One error type for everything the client can fail with (HTTP answers, broken streams, network). */
export interface PlatformErrorShape {
  status: number;            // HTTP status; 0 for network failures and broken streams
  type: string | null;       // body `type` ('invalid_request_error', …) or 'network_error' / 'stream_error'
  code: string | null;
  message: string;
  retryAfter: number | null; // seconds, from Retry-After
  detail?: ValidationIssue[];
}

/** A streamed turn: an async iterable of the real events, abortable. */
export interface ConversationStream extends AsyncIterable<ConversationEvent> {
  /** Resolves with the conversation id once `conversation.response.started` arrives. */
  readonly conversationId: Promise<string>;
  /** Cancels the turn (a stream the relay named is cancelled there too: a stop is never resumed). */
  abort(): void;
  /** Stops reading but leaves the reply running on the relay, to be resumed (absent: same as `abort`). */
  detach?(): void;
  /** The relay's stream id and the id of the last event iterated; null when the stream is not resumable. */
  readonly resumePoint?: ResumePoint | null;
}

/** Where a relayed stream can be resumed from (issue 16). */
export interface ResumePoint {
  streamId: string;
  /** `<streamId>:<seq>` of the last event received, null before the first. */
  lastEventId: string | null;
}

/** A reply streaming when the page last saw it, kept in the history store so a reload (or another tab) resumes it. */
export interface InflightReply extends ResumePoint {
  conversationId: string;
  /** The entry being streamed then, null before the first one. */
  entryId: string | null;
}

/**
 * Messages written while offline, kept in the history store until sent or cancelled so a reload (or a
 * closed tab) does not lose them: the page-made input entries and what is needed to send them again.
 */
export interface WaitingTurn {
  /** The conversation id (an append), or `new:agent:<id>` / `new:model:<name>` (a first message: no conversation yet). */
  key: string;
  /** The conversation the entries are appended to; null for a first message. */
  conversationId: string | null;
  /** The user's entries (page-made ids), in order. */
  entries: CachedEntry[];
  savedAt: string;
}

export interface RequestOptions { signal?: AbortSignal }

export interface ParleyClientApi {
  readonly baseUrl: string;
  readonly conversations: {
    /** Always streamed (`stream: true` is set by the client). */
    start(request: Omit<StartConversationRequest, 'stream'>, options?: RequestOptions): ConversationStream;
    append(conversationId: string, request: Omit<AppendConversationRequest, 'stream'>, options?: RequestOptions): ConversationStream;
    restart(conversationId: string, request: Omit<RestartConversationRequest, 'stream'>, options?: RequestOptions): ConversationStream;
    /**
     * Resumes a relayed stream after `from.lastEventId` (`GET {relay}/streams/{id}`): the events it had not
     * received. A stream the relay can no longer resume fails with code `stream_gone`.
     */
    resume?(from: { streamId: string; lastEventId: string | null; conversationId: string }, options?: RequestOptions): ConversationStream;
    get(conversationId: string, options?: RequestOptions): Promise<ModelConversation | AgentConversation>;
    list(query?: { page?: number; pageSize?: number }, options?: RequestOptions): Promise<Array<ModelConversation | AgentConversation>>;
    delete(conversationId: string, options?: RequestOptions): Promise<void>;
    history(conversationId: string, options?: RequestOptions): Promise<ConversationHistory>;
    messages(conversationId: string, options?: RequestOptions): Promise<ConversationMessages>;
  };
  readonly agents: {
    get(agentId: string, query?: { agentVersion?: string | number }, options?: RequestOptions): Promise<Agent>;
  };
  readonly models: { list(options?: RequestOptions): Promise<ModelList> };
  /** Text to speech (`POST /v1/audio/speech`). */
  readonly speech: SpeechApi;
  /** Speech to text: files (`POST /v1/audio/transcriptions`) and the realtime WebSocket. */
  readonly transcription: TranscriptionApi;
  /** Document text recognition (`POST /v1/ocr`). */
  readonly ocr: OcrApi;
  /**
   * Ratings of replies through the relay (`POST {relay}/v1/conversations/{id}/feedback`), which writes them to the
   * site owner's dataset. `available()` says whether the relay serves it for this session (its session answer lists `feedback`).
   */
  readonly feedback?: {
    available(options?: RequestOptions): Promise<boolean>;
    send(conversationId: string, feedback: FeedbackRequest, options?: RequestOptions): Promise<void>;
  };
}

/** The body of `POST {relay}/v1/conversations/{id}/feedback`. */
export interface FeedbackRequest {
  message_id: string;
  rating: 'up' | 'down';
  comment?: string;
}

// ---------------------------------------------------------------- speech (client side; wire types in types.ts)

/** A whole synthesized file: the JSON answer `{audio_data}` plus its decoded bytes. */
export interface SynthesizedSpeech {
  /** Base64 of the file in `format`, as the platform sent it. */
  audio_data: string;
  /** The decoded file. */
  bytes: Uint8Array;
  format: SpeechFormat;
}

/** A streamed synthesis: the decoded bytes of the file in `format`, fragment by fragment, abortable. */
export interface SpeechAudioStream extends AsyncIterable<Uint8Array> {
  readonly format: SpeechFormat;
  /** Resolves with the usage of `speech.audio.done` (null if the stream ended otherwise). */
  readonly usage: Promise<SpeechUsage | null>;
  abort(): void;
}

/** A voice as the client returns it (the wire shape). */
export type SpeechVoice = Voice;
/** A page of voices (the wire shape). */
export type SpeechVoiceList = VoiceList;

/** `client.speech`. */
export interface SpeechApi {
  /** One request, the whole file at once (`stream: false`). */
  synthesize(request: SpeechRequest, options?: RequestOptions): Promise<SynthesizedSpeech>;
  /** Streamed (`stream: true`): bytes as they are generated. Retries before the first byte only. */
  stream(request: SpeechRequest, options?: RequestOptions): SpeechAudioStream;
  /** `GET /v1/audio/voices` (the default relay table routes it for speech sessions). */
  voices(query?: { limit?: number; offset?: number; type?: 'all' | 'custom' | 'preset' }, options?: RequestOptions): Promise<SpeechVoiceList>;
}

// ---------------------------------------------------------------- transcription (client side; wire types in types.ts)

/** Options of a file transcription (form fields of `POST /v1/audio/transcriptions`). */
export interface TranscribeOptions extends RequestOptions {
  /** Default `voxtral-mini-latest`. */
  model?: string;
  /** e.g. `en`; the platform says it cannot be combined with `timestampGranularities`. */
  language?: string;
  temperature?: number;
  diarize?: boolean;
  contextBias?: string[];
  timestampGranularities?: Array<'segment' | 'word'>;
  /** File name sent in the form; default the File's name, else `audio.<ext>` from the Blob type. */
  filename?: string;
}

/** A streamed file transcription: the four event types of the platform, in order, abortable. */
export interface TranscriptionEventStream extends AsyncIterable<TranscriptionStreamEvent> {
  /** The `transcription.done` payload; rejects with a PlatformError when the stream fails or ends without it. */
  readonly result: Promise<TranscriptionResponse>;
  abort(): void;
}

/** Options of {@link TranscriptionApi.realtime}. */
export interface RealtimeTranscriptionOptions extends RequestOptions {
  /** Default `voxtral-mini-transcribe-realtime-2602`. */
  model?: string;
  /** Rate of the s16le PCM that will be appended (default 16000); sent as `session.update` when not the server's. */
  sampleRate?: number;
  targetStreamingDelayMs?: number;
}

/**
 * One realtime WebSocket session. Iterate it for server events (after `session.created`: language,
 * text deltas, segments, `transcription.done`, `error`); the iteration ends when the socket closes.
 */
export interface RealtimeTranscriptionSession extends AsyncIterable<RealtimeServerEvent> {
  /** The session as `session.created` (or a later `session.updated`) described it. */
  readonly info: RealtimeSessionInfo;
  /** Sends s16le mono PCM at the session's rate (`input_audio.append`, base64). */
  append(pcm: Int16Array): void;
  /** `input_audio.flush`: transcribe what was sent so far without ending the session. */
  flush(): void;
  /** `input_audio.end`: no more audio. Resolves with the `transcription.done` payload; rejects with a PlatformError. */
  end(): Promise<TranscriptionResponse>;
  /** Closes the socket at once (what was received is kept by the caller). */
  close(): void;
  readonly closed: boolean;
}

/** `client.transcription`. */
export interface TranscriptionApi {
  /** One request, the whole result (`stream=false`). */
  transcribe(file: Blob, options?: TranscribeOptions): Promise<TranscriptionResponse>;
  /** Streamed (`stream=true`, SSE). Retries before the first byte only. */
  transcribeStream(file: Blob, options?: TranscribeOptions): TranscriptionEventStream;
  /**
   * Opens the realtime WebSocket: asks `POST {base}/v1/client/sessions` for a short-lived `rt_` secret
   * (the relay's are single-use, 60 s), connects to `{base}/v1/audio/transcriptions/realtime?model=…`
   * with subprotocols `['realtime', secret]`, and resolves after `session.created` (and `session.updated`
   * when a sample rate was asked).
   */
  realtime(options?: RealtimeTranscriptionOptions): Promise<RealtimeTranscriptionSession>;
}

// ---------------------------------------------------------------- OCR (client side; wire types in types.ts)

/** Progress of {@link OcrApi.process}: pages recognised so far, of how many (null while unknown). */
export interface OcrProgress { pagesDone: number; pagesTotal: number | null }

/** Options of {@link OcrApi.process} (the request fields in camel case, plus batching and progress). */
export interface OcrOptions extends RequestOptions {
  /** Default `mistral-ocr-latest`. */
  model?: string;
  /** 0-based pages to recognise (default all). */
  pages?: number[];
  /**
   * Pages in the document, when the caller knows it: with `pages`, it lets the client send the
   * document in batches of `batchSize` pages and report progress per batch. Without both, a PDF
   * Blob's page count is read from its page tree when it is stored uncompressed; otherwise one request.
   */
  pageCount?: number;
  /** Pages per request when batching (default 4). */
  batchSize?: number;
  includeImageBase64?: boolean;
  imageLimit?: number;
  /** Minimum height and width of the images extracted. */
  imageMinSize?: number;
  tableFormat?: 'markdown' | 'html';
  /** `document_name` sent with a document; default the File's name. */
  documentName?: string;
  /** Called with `{pagesDone: 0}` first, then after each answered batch. */
  onProgress?: (progress: OcrProgress) => void;
}

/** `client.ocr`. */
export interface OcrApi {
  /**
   * Recognises the text of a PDF or an image: a Blob/File (sent as a `data:` URL, PDFs as
   * `document_url`, images as `image_url`) or an https URL (an image by its extension, else a
   * document). Batched requests are merged in page order; every failure is a PlatformError.
   */
  process(document: Blob | string, options?: OcrOptions): Promise<OcrResponse>;
}

// ---------------------------------------------------------------- voice input (microphone → text; src/audio/capture)

/**
 * Why voice input failed, in words an element can show. `audio-not-started`: the microphone was granted but the
 * audio context did not start within a short time (src/audio/audio-start.ts), e.g. a browser with no sound device.
 */
export type VoiceInputErrorKind = 'permission-denied' | 'no-microphone' | 'unsupported' | 'microphone-busy' | 'audio-not-started' | 'network' | 'platform';
export interface VoiceInputError { kind: VoiceInputErrorKind; message: string; cause?: unknown }

export type VoiceInputState = 'idle' | 'starting' | 'listening' | 'finishing' | 'error';

/** A finished utterance (or a whole toggle recording). */
export interface VoiceInputResult { text: string; segments: TranscriptionResponse['segments']; language: string | null; durationSeconds: number }

export interface VoiceInputEventMap {
  state: VoiceInputState;
  /** Input level 0..1 (RMS mapped from dBFS), about 20 times a second while listening. */
  level: number;
  /** Voice activity detection: speech started / ended (ended after `endOfUtteranceMs` of silence). */
  speechstart: void;
  speechend: void;
  /** The words recognised so far in this recording (whole text, not a delta). */
  partial: string;
  /** A segment with its times (seconds from the start of the recording). */
  segment: { text: string; start: number; end: number; speaker_id?: string | null };
  final: VoiceInputResult;
  error: VoiceInputError;
}

export interface VoiceInputOptions {
  client: ParleyClientApi;
  /** Realtime model (default the client's default). */
  model?: string;
  /**
   * `utterance`: stops by itself after the first utterance ends (voice activity detection) and gives its final text;
   * `continuous`: listens until {@link VoiceInputApi.stop} (one final for the whole recording).
   */
  mode?: 'utterance' | 'continuous';
  /** Silence that ends an utterance, ms (default 800). */
  endOfUtteranceMs?: number;
  /** Give up in `utterance` mode when no speech starts within this many ms (default 8000; 0 = never). */
  noSpeechTimeoutMs?: number;
  echoCancellation?: boolean;
  noiseSuppression?: boolean;
  autoGainControl?: boolean;
  deviceId?: string;
}

/** Microphone capture + voice activity detection + realtime transcription, as one controller for the elements. */
export interface VoiceInputApi {
  readonly state: VoiceInputState;
  /** Asks for the microphone (call inside a user gesture), opens the realtime session and starts listening. */
  start(): Promise<void>;
  /** Ends the audio and resolves with the final result (null when nothing was said). */
  stop(): Promise<VoiceInputResult | null>;
  /** Stops at once; no final. */
  cancel(): void;
  on<K extends keyof VoiceInputEventMap>(type: K, listener: (value: VoiceInputEventMap[K]) => void): () => void;
  dispose(): void;
}

// ---------------------------------------------------------------- history store

export interface CachedConversation {
  id: string;
  title: string;            // first user message, shortened
  agentId: string | null;
  model: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A cached entry; `interrupted` marks a reply cut off (reload or broken stream) before it finished. */
export type CachedEntry = ConversationEntry & { interrupted?: boolean };

export interface HistoryStoreApi {
  listConversations(): Promise<CachedConversation[]>;                 // newest first
  getConversation(id: string): Promise<CachedConversation | undefined>;
  getEntries(conversationId: string): Promise<CachedEntry[]>;         // in order
  putConversation(conversation: CachedConversation): Promise<void>;
  /** Insert or replace an entry by id (called as deltas arrive, so a reload keeps what was received). */
  putEntry(conversationId: string, entry: CachedEntry): Promise<void>;
  /** Replace the cached entries with the server's (reconcile when online). */
  replaceEntries(conversationId: string, entries: ConversationEntry[]): Promise<void>;
  deleteConversation(id: string): Promise<void>;
  getResumeToken(relayUrl: string): Promise<string | undefined>;
  setResumeToken(relayUrl: string, token: string): Promise<void>;
  /** The reply of `conversationId` that was streaming when last seen (pending writes included). */
  getInflight?(conversationId: string): Promise<InflightReply | undefined>;
  /** Keeps where a streaming reply is; coalesced with `putEntry` (one transaction: entries and point agree). */
  putInflight?(record: InflightReply): Promise<void>;
  /** The reply ended (finished, stopped, gone): nothing to resume. Coalesced like `putInflight`. */
  deleteInflight?(conversationId: string): Promise<void>;
  /** The messages waiting for the connection under `key` (see {@link WaitingTurn}). */
  getWaiting?(key: string): Promise<WaitingTurn | undefined>;
  /** Keeps the messages waiting under `record.key`, merged by entry id with those already kept there. */
  putWaiting?(record: WaitingTurn): Promise<void>;
  /**
   * Reads and deletes the waiting messages of `key` in one transaction (tabs cannot interleave): only the
   * caller that gets the record may send it; undefined when there was none (another tab took it).
   */
  takeWaiting?(key: string): Promise<WaitingTurn | undefined>;
  /** Forgets the messages waiting under `key` (cancelled): those of `ids`, or all. */
  deleteWaiting?(key: string, ids?: readonly string[]): Promise<void>;
  /** The store's name (tabs of one site showing the same store talk on a channel named after it). */
  readonly name?: string;
  /** Called when old conversations were evicted to make room (quota). */
  onEvicted?: (ids: string[]) => void;
  /** The visitor's ratings of a conversation's replies, by message id. */
  getFeedback?(conversationId: string): Promise<Record<string, ReplyFeedback>>;
  /** Keeps (or, with null, forgets) the visitor's rating of reply `messageId`. */
  setFeedback?(conversationId: string, messageId: string, feedback: ReplyFeedback | null): Promise<void>;
}

/** The visitor's rating of one reply, and the comment that came with it. */
export interface ReplyFeedback {
  rating: 'up' | 'down';
  comment?: string;
}

// ---------------------------------------------------------------- chat session (what <agent-chat> renders)

export type ChatStatus = 'ready' | 'submitted' | 'streaming' | 'error';

/**
 * A page-registered tool: runs in the page when the agent calls the function of that name. With
 * `requiresApproval` (true, or a predicate over the call's parsed arguments that returns true) the visitor
 * is asked first (`state.approvals`, answered with `decideToolCall`); declined, it does not run and the
 * model gets `DECLINED_TOOL_RESULT` (tool-rounds.ts) as its result.
 */
export interface ClientTool {
  (args: any): unknown | Promise<unknown>;
  requiresApproval?: boolean | ((args: any) => boolean);
}

/** A client tool's call waiting for the visitor's consent. */
export interface ToolApprovalRequest {
  /** The call's `tool_call_id` (what `decideToolCall` takes). */
  toolCallId: string;
  /** The function the model called. */
  name: string;
  /** Its arguments as the model sent them (a JSON string; untrusted). */
  arguments: string;
}

export interface ChatState {
  conversationId: string | null;
  /** Entries in order, including the one streaming now (its content grows). */
  entries: CachedEntry[];
  /** Id of the entry being streamed, if any. */
  streamingEntryId: string | null;
  status: ChatStatus;
  error: PlatformErrorShape | null;
  /** Name of the agent speaking now (changes on handoff), or null. */
  agentName: string | null;
  /** Notices for the user (e.g. "Older conversations were removed to free space"). */
  notice: string | null;
  /**
   * Ids of the user's entries waiting for the connection (sent when the page is offline, or the send got
   * no answer at all): they are sent by themselves when the browser is back online. Absent or empty: none.
   */
  waiting?: string[];
  /** Another tab of this site streams the reply shown here; this one follows it (and takes over if it closes). */
  following?: boolean;
  /** Client-tool calls waiting for the visitor's consent (the turn waits, status `submitted`). Absent or empty: none. */
  approvals?: ToolApprovalRequest[];
}

export interface ChatSessionOptions {
  client: ParleyClientApi;
  store?: HistoryStoreApi;
  agentId?: string;
  agentVersion?: string | number;
  model?: string;
  instructions?: string;
  handoffExecution?: 'server' | 'client';
  /** Functions the page runs for the agent's function calls, by function name. */
  tools?: Record<string, ClientTool>;
  /** Tool definitions sent when starting a model conversation (an agent carries its own). */
  toolDefinitions?: Tool[];
}

export interface ChatSessionApi {
  readonly state: ChatState;
  /** Called after every state change (deltas included); returns an unsubscribe function. */
  subscribe(listener: (state: ChatState) => void): () => void;
  /**
   * Sends a user message: its text, or content chunks (text with `image_url` and `document_url` attachments).
   * Blank text with no attachment sends nothing.
   */
  send(message: string | readonly InputContentChunk[]): Promise<void>;
  /** Aborts the turn streaming now; what was received is kept. */
  stop(): void;
  /** Drops the messages waiting for the connection (`state.waiting`) instead of sending them. */
  cancelWaiting?(): void;
  /** Answers a call of `state.approvals`: allowed, its tool runs; declined, the model is told so. False when no such call waits. */
  decideToolCall?(toolCallId: string, allow: boolean): boolean;
  /**
   * On a new, empty chat: shows the first message written offline for this agent/model (kept in the store
   * across reloads) as waiting again, and sends it when online. Resolves true when there was one.
   */
  restoreWaiting?(): Promise<boolean>;
  /** Sends the failed turn again. */
  retry(): Promise<void>;
  /** Restart from the user message before `entryId` (default: the last reply) to get a new reply. */
  regenerate(entryId?: string): Promise<void>;
  /** Restart from before the user message `entryId` with new text. */
  edit(entryId: string, text: string): Promise<void>;
  /** Shows a conversation: cached entries at once, then reconciled with the server. */
  load(conversationId: string): Promise<void>;
  /** Starts afresh (the next send starts a new conversation). */
  reset(): void;
  listConversations(): Promise<CachedConversation[]>;
  deleteConversation(conversationId: string): Promise<void>;
  dispose(): void;
}
