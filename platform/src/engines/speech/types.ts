import type { ModelCard, SpeechFormat, Voice, VoiceList } from 'parley-kit/types';

/** Output rate of every speech engine, as the real service (24 kHz mono). */
export const SPEECH_SAMPLE_RATE = 24_000;

/** Response formats of `POST /v1/audio/speech` (`mp3` is the default, as on the real platform). */
export const SPEECH_FORMATS = ['mp3', 'wav', 'pcm', 'flac', 'opus'] as const satisfies readonly SpeechFormat[];
export type { SpeechFormat };

/** Wire shapes of `GET /v1/audio/voices` (src/client/types.ts). */
export type VoiceResponse = Voice;
export type VoiceListResponse = VoiceList;

/** A preset voice of an engine: the wire shape plus what the engine needs to select it. */
export interface PresetVoice extends VoiceResponse {
  slug: string;
  languages: string[];
  /** Engine-specific voice selector (for espeak-ng: `en-us+f3`…). */
  engineVoice: string;
}

export interface SynthesisRequest {
  text: string;
  voice: PresetVoice;
  signal?: AbortSignal;
}

/**
 * A text-to-speech engine (architecture rule 6). Engines start lazily, synthesise off the event loop
 * and are reused across requests.
 */
export interface SpeechEngine {
  /** Model cards this engine serves (capabilities `audio_speech` only). */
  models(): ModelCard[];
  /** Preset voices; the first one is the default. */
  voices(): PresetVoice[];
  /** Starts the engine if needed; rejects with {@link SpeechEngineUnavailableError} when it cannot run here. */
  ready(): Promise<void>;
  /**
   * Mono float32 audio at {@link SPEECH_SAMPLE_RATE} in [-1, 1], chunk by chunk while it is synthesised.
   * Aborting `signal` stops synthesis and ends the iterable early (no error).
   */
  synthesize(request: SynthesisRequest): AsyncIterable<Float32Array>;
  close?(): Promise<void>;
}

/** The engine cannot run on this install (e.g. its optional dependency is missing) → 503. */
export class SpeechEngineUnavailableError extends Error {}

/** The engine has too many requests waiting → 503 with Retry-After. */
export class SpeechEngineBusyError extends Error {}
