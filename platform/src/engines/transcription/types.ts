import type { ModelCard } from 'parley-kit/types';

/** Rate of the PCM every transcription engine is fed: signed 16-bit little-endian, mono, 16 kHz. */
export const TRANSCRIPTION_SAMPLE_RATE = 16_000;

/** A recognised word; times are seconds from the start of the audio. */
export interface RecognizedWord { word: string; start: number; end: number; confidence: number | null }

/** One utterance as the engine's voice activity detection cut it. */
export interface Utterance { text: string; start: number; end: number; words: RecognizedWord[] }

export interface TranscriptionJob {
  /** Mono s16 PCM at {@link TRANSCRIPTION_SAMPLE_RATE}, fed to the engine chunk by chunk. */
  audio: AsyncIterable<Int16Array> | Iterable<Int16Array>;
  signal?: AbortSignal;
}

/**
 * A speech-to-text engine (architecture rule 6). `transcribe` yields utterances as soon as the engine
 * has them, while it is still being fed. Errors before the first utterance are thrown by the first `next()`.
 */
export interface TranscriptionEngine {
  readonly id: string;
  models(): ModelCard[];
  /** Throws {@link TranscriptionEngineUnavailableError} when the engine cannot run here. */
  ready(): Promise<void>;
  transcribe(job: TranscriptionJob): AsyncIterable<Utterance>;
  close?(): Promise<void>;
}

export class TranscriptionEngineUnavailableError extends Error {}
export class TranscriptionEngineBusyError extends Error {}
