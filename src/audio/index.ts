/**
 * The audio layer (browser only; nothing touches `window` at import): decoding speech stream bytes,
 * gapless scheduling on Web Audio, playback with volume, rate, pause and levels, and the text work of
 * speaking replies (markdown to words, sentences from a growing reply); and speech in (./capture: microphone
 * capture, level, voice activity detection, WAV encoding, the voice input controller).
 */
export { Float32PcmDecoder, PCM_SAMPLE_RATE } from './pcm-decoder.js';
export { WavStreamDecoder, parseWavHeader, wavFramesToMono } from './wav-decoder.js';
export type { WavFormat, WavHeader } from './wav-decoder.js';
export { createSpeechDecoder } from './speech-decoder.js';
export type { DecodedAudio, DecodeFile, SpeechDecoder } from './speech-decoder.js';
export { DEFAULT_SCHEDULE, contentPlayed, initialSchedule, placeChunk } from './schedule.js';
export type { ChunkSlot, ScheduleOptions, ScheduleState, ScheduledSpan } from './schedule.js';
export { AudioDeltaScheduler } from './audio-delta-scheduler.js';
export type { AudioDeltaSchedulerOptions, ScheduledChunk, SpeechAudioContext } from './audio-delta-scheduler.js';
export { SpeechPlayback } from './speech-playback.js';
export type { FeedResult, FirstAudioDetail, SpeechPlaybackOptions, SpeechPlaybackState } from './speech-playback.js';
export { SentenceSplitter, speakableText } from './spoken-text.js';
export {
  CAPTURE_SAMPLE_RATE, CaptureResampler, MicCapture, SILENCE_DBFS, VOICE_TIMING, VoiceActivityDetector, VoiceInputFailure,
  createVoiceInput, encodeWav, meterLevel, microphoneFailure, rms, toDbfs, transcriptionFailure,
} from './capture/index.js';
export type {
  MicCaptureOptions, VoiceActivityEvent, VoiceActivityOptions, VoiceInputDependencies, VoiceInputMicrophone,
} from './capture/index.js';
