/**
 * Voice activity detection on microphone frames, by energy against an adaptive noise floor: a frame is
 * voiced when it is louder than the floor by a margin (and than an absolute minimum); speech starts after
 * `startMs` of voiced frames in a row and ends after `endOfUtteranceMs` without one. The floor follows
 * quieter frames quickly and louder ones slowly (more slowly during speech), so steady background noise
 * (a fan, a hum) becomes the floor instead of speech. Times are counted in audio, from the frames' lengths,
 * so the detector is deterministic and testable without a clock.
 */
import { rms, toDbfs } from './level.js';

export interface VoiceActivityOptions {
  /** Silence that ends an utterance, ms (default 800). */
  endOfUtteranceMs?: number;
  /** Voiced audio in a row that starts speech, ms (default 150). */
  startMs?: number;
  /** dB above the noise floor for a frame to be voiced before speech starts (default 12). */
  startMarginDb?: number;
  /** dB above the noise floor for a frame to be voiced once speech started (default 8). */
  continueMarginDb?: number;
  /** Frames quieter than this are never voiced, dBFS (default -50). */
  minSpeechDbfs?: number;
}

/** What a frame changed. Times are ms of audio since the first frame. */
export type VoiceActivityEvent =
  | { type: 'speechstart'; /** Start of the first voiced frame of the run. */ startMs: number; /** When it was detected (end of this frame). */ atMs: number }
  | { type: 'speechend'; /** End of the last voiced frame. */ lastVoicedMs: number; /** When it was detected (end of this frame). */ atMs: number };

const DOWN_TAU_MS = 100;
const UP_TAU_MS = 1500;
const UP_TAU_SPEAKING_MS = 6000;

/** Energy-based voice activity detector; push s16 mono frames in order. */
export class VoiceActivityDetector {
  readonly sampleRate: number;
  readonly #endOfUtteranceMs: number;
  readonly #startMs: number;
  readonly #startMarginDb: number;
  readonly #continueMarginDb: number;
  readonly #minSpeechDbfs: number;
  #floorDb: number | null = null;
  #speaking = false;
  #timeMs = 0;
  /** Start of the current run of voiced frames (null when the last frame was unvoiced). */
  #runStartMs: number | null = null;
  #lastVoicedMs = 0;

  constructor(sampleRate: number, options: VoiceActivityOptions = {}) {
    if (!(sampleRate > 0)) throw new RangeError(`The sample rate must be positive (got ${sampleRate})`);
    this.sampleRate = sampleRate;
    this.#endOfUtteranceMs = options.endOfUtteranceMs ?? 800;
    this.#startMs = options.startMs ?? 150;
    this.#startMarginDb = options.startMarginDb ?? 12;
    this.#continueMarginDb = options.continueMarginDb ?? 8;
    this.#minSpeechDbfs = options.minSpeechDbfs ?? -50;
    if (!(this.#endOfUtteranceMs > 0)) throw new RangeError(`endOfUtteranceMs must be positive (got ${this.#endOfUtteranceMs})`);
  }

  /** Whether speech started and has not ended. */
  get speaking(): boolean {
    return this.#speaking;
  }

  /** The noise floor now, dBFS (null before the first frame). */
  get noiseFloorDb(): number | null {
    return this.#floorDb;
  }

  /** Ms of audio seen so far. */
  get timeMs(): number {
    return this.#timeMs;
  }

  /** Takes the next frame; returns the speech start or end it completes, if any. */
  push(frame: Int16Array): VoiceActivityEvent | null {
    if (frame.length === 0) return null;
    const frameMs = (frame.length / this.sampleRate) * 1000;
    const startMs = this.#timeMs;
    this.#timeMs += frameMs;
    const db = toDbfs(rms(frame));
    // The first floor is at most the speech minimum, so that speech from the very first frame is found;
    // a steady sound that loud is then absorbed as the floor rises (see below).
    const floor = this.#floorDb ?? Math.min(db, this.#minSpeechDbfs);
    const margin = this.#speaking ? this.#continueMarginDb : this.#startMarginDb;
    const voiced = db >= this.#minSpeechDbfs && db >= floor + margin;
    const tau = db < floor ? DOWN_TAU_MS : this.#speaking ? UP_TAU_SPEAKING_MS : UP_TAU_MS;
    this.#floorDb = floor + (db - floor) * (1 - Math.exp(-frameMs / tau));

    if (voiced) {
      this.#lastVoicedMs = this.#timeMs;
      this.#runStartMs ??= startMs;
      if (!this.#speaking && this.#timeMs - this.#runStartMs >= this.#startMs) {
        this.#speaking = true;
        return { type: 'speechstart', startMs: this.#runStartMs, atMs: this.#timeMs };
      }
      return null;
    }
    this.#runStartMs = null;
    if (this.#speaking && this.#timeMs - this.#lastVoicedMs >= this.#endOfUtteranceMs) {
      this.#speaking = false;
      return { type: 'speechend', lastVoicedMs: this.#lastVoicedMs, atMs: this.#timeMs };
    }
    return null;
  }
}
