/**
 * The client layer: typed platform calls, streamed turns, errors, relay sessions, and the chat
 * state machine the elements render. Isomorphic and side-effect free (nothing touches `window`,
 * `document` or IndexedDB at import). The history cache the chat keeps is in src/store (`parley-kit`
 * exports `HistoryStore`); the client only knows its contract, `HistoryStoreApi`.
 */
export type * from './types.js';
export type * from './contracts.js';

export { ParleyClient } from './client.js';
export type { ParleyClientOptions } from './client.js';
export { getClient, forgetClient } from './registry.js';
export type { SharedClientOptions } from './registry.js';
export { RelaySession } from './session.js';
export type { RelaySessionOptions, ResumeTokenStore, TokenSource } from './session.js';
export { ConversationEventStream, STREAM_GONE } from './conversation-stream.js';
export type { StreamResumeOptions } from './conversation-stream.js';
export { PlatformError, AUDIO_NOT_STARTED, NETWORK_ERROR, ORIGIN_NOT_ALLOWED, STREAM_ERROR, isAbortError, isOriginRefusal, isPlatformErrorShape, refusalKind } from './errors.js';
export type { RefusalKind } from './errors.js';
export type { RetryOptions } from './retry.js';
export { DEFAULT_MODELS, DEFAULT_OCR_MODEL, DEFAULT_REALTIME_MODEL, DEFAULT_TRANSCRIPTION_MODEL } from './default-models.js';
export { ChatSession, EVICTED_NOTICE, NOT_SAVED_NOTICE } from './chat-session.js';
export { isLocalId } from './chat-entries.js';
export { DECLINED_TOOL_RESULT } from './tool-rounds.js';
