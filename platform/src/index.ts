/**
 * `@parley-kit/platform`: the local platform (createPlatform, its Node adapter servePlatform) and the engines a
 * caller may plug in or reuse (chat, speech, OCR, the tokenizer).
 */
export { createPlatform, defaultChatEngines } from './app.js';
export type { Platform, PlatformOptions } from './app.js';
export { servePlatform } from './node.js';
export type { UpgradeHandler } from 'parley-kit/server';
export { REALTIME_TRANSCRIPTION_PATH } from './realtime/endpoint.js';
export type { ChatEngine, ChatEngineEvent, ChatTurnRequest, HandoffTarget, SourceReference } from './engines/chat/types.js';
export { createLocalChatEngine } from './engines/chat/local.js';
export { tokenize } from './engines/text/tokenizer.js';
export { createOpenAICompatibleChatEngine } from './engines/chat/openai-compatible.js';
export { SpeechCatalog, createEspeakSpeechEngine, SpeechEngineUnavailableError, SpeechEngineBusyError, SPEECH_FORMATS, SPEECH_SAMPLE_RATE } from './engines/speech/index.js';
export type { SpeechEngine, SpeechFormat, PresetVoice, SynthesisRequest, EspeakEngineOptions } from './engines/speech/index.js';
export { createLocalOcrEngine } from './engines/ocr/local.js';
export type { OcrEngine } from './engines/ocr/types.js';
