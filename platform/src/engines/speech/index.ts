/** The speech engines as the package exports them (index.ts): the catalog, espeak-ng, formats and errors. */
export { SpeechCatalog } from './catalog.js';
export { createEspeakSpeechEngine } from './espeak.js';
export type { EspeakEngineOptions } from './espeak.js';
export {
  SPEECH_FORMATS,
  SPEECH_SAMPLE_RATE,
  SpeechEngineBusyError,
  SpeechEngineUnavailableError,
} from './types.js';
export type { PresetVoice, SpeechEngine, SpeechFormat, SynthesisRequest } from './types.js';
