export { SpeechCatalog } from './catalog.js';
export { createEspeakSpeechEngine, ESPEAK_INSTALL_HINT, ESPEAK_PACKAGE } from './espeak.js';
export type { EspeakEngineOptions } from './espeak.js';
export { createEncoder } from './encoders.js';
export type { AudioEncoder } from './encoders.js';
export { Resampler } from './resample.js';
export { presetVoice, uuidV5 } from './voices.js';
export {
  SPEECH_FORMATS,
  SPEECH_SAMPLE_RATE,
  SpeechEngineBusyError,
  SpeechEngineUnavailableError,
} from './types.js';
export type { PresetVoice, SpeechEngine, SpeechFormat, SynthesisRequest, VoiceListResponse, VoiceResponse } from './types.js';
