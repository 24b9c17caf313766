/**
 * parley-kit public browser entry. Side-effect free: importing it defines no element and touches no
 * global. Register the elements with `import 'parley-kit/agent-chat'`, `import 'parley-kit/speech-player'`,
 * `import 'parley-kit/audio-transcriber'` and `import 'parley-kit/doc-ocr-viewer'` (or subclass `AgentChat` /
 * `SpeechPlayer` / `AudioTranscriber` / `DocOcrViewer` under another tag).
 */
export type * from './client/types.js';
export type * from './client/contracts.js';
export { ParleyClient, getClient, forgetClient, RelaySession, PlatformError, ChatSession } from './client/index.js';
export { HistoryStore } from './store/index.js';
export type { HistoryStoreOptions } from './store/index.js';
export { AgentChat } from './elements/agent-chat/agent-chat.js';
export { SpeechPlayer } from './elements/speech-player/speech-player.js';
export { AudioTranscriber } from './elements/audio-transcriber/audio-transcriber.js';
export { DocOcrViewer } from './elements/doc-ocr-viewer/doc-ocr-viewer.js';
// Languages: the elements follow their `lang` (or the page's); registerLocale adds or replaces one for all four.
export { registerLocale, loadLocale, shippedLocales } from './elements/internal/locale.js';
export type { LocaleCatalogue, CompleteLocaleCatalogue } from './elements/internal/locale.js';
export type { AgentChatStrings } from './elements/agent-chat/strings.js';
export type { SpeechPlayerStrings } from './elements/speech-player/strings.js';
export type { AudioTranscriberStrings } from './elements/audio-transcriber/strings.js';
export type { DocOcrViewerStrings } from './elements/doc-ocr-viewer/strings.js';
// The details of the elements' events (also in GlobalEventHandlersEventMap), for named handlers.
export type * from './elements/internal/events.js';
export type * from './elements/agent-chat/voice-events.js';
export type * from './elements/agent-chat/feedback-events.js';
export type * from './elements/audio-transcriber/events.js';
export type * from './elements/doc-ocr-viewer/events.js';
