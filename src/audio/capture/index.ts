/**
 * Speech in (browser only; nothing touches `window` at import): microphone capture through an
 * AudioWorklet resampling to 16 kHz, level meter, voice activity detection, WAV encoding, and the
 * `VoiceInputApi` controller that streams it all to realtime transcription.
 */
export { createVoiceInput, VOICE_TIMING } from './voice-input.js';
export type { VoiceInputDependencies, VoiceInputMicrophone } from './voice-input.js';
export { MicCapture, CAPTURE_SAMPLE_RATE } from './mic-capture.js';
export type { MicCaptureOptions } from './mic-capture.js';
export { VoiceInputFailure, microphoneFailure, transcriptionFailure } from './voice-input-error.js';
export { VoiceActivityDetector } from './vad.js';
export type { VoiceActivityEvent, VoiceActivityOptions } from './vad.js';
export { SILENCE_DBFS, meterLevel, rms, toDbfs } from './level.js';
export { encodeWav } from './wav.js';
export { CaptureResampler } from './resampler.js';
export { CAPTURE_PROCESSOR_NAME, MIC_WORKLET_FILE, captureWorkletSource } from './capture-worklet.js';
export type { CaptureChunkMessage, CaptureProcessorOptions } from './capture-worklet.js';
