export { createPlatform, defaultChatEngines } from './app.js';
export type { Platform, PlatformOptions } from './app.js';
export { servePlatform } from './node.js';
export type { ChatEngine, ChatEngineEvent, ChatTurnRequest, HandoffTarget } from './engines/chat/types.js';
export { createLocalChatEngine } from './engines/chat/local.js';
export { createOpenAICompatibleChatEngine } from './engines/chat/openai-compatible.js';
export { SpeechCatalog, createEspeakSpeechEngine, SpeechEngineUnavailableError, SpeechEngineBusyError, SPEECH_FORMATS, SPEECH_SAMPLE_RATE } from './engines/speech/index.js';
export type { SpeechEngine, SpeechFormat, PresetVoice, SynthesisRequest, EspeakEngineOptions } from './engines/speech/index.js';
