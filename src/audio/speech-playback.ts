/**
 * Speech out for one player: one AudioContext (24 kHz, the platform's speech rate, created on first
 * use and unlocked inside a user gesture), a gain for volume, an analyser for level meters, and an
 * {@link AudioDeltaScheduler} that plays decoded stream chunks gaplessly. Feed it the byte streams of
 * `client.speech.stream()` one after another; `stop()` flushes everything and cancels the stream being read.
 */
import type { SpeechFormat } from '../client/contracts.js';
import { LatestRun } from '../client/latest-run.js';
import { AudioDeltaScheduler, type ScheduledChunk } from './audio-delta-scheduler.js';
import { speechContext } from './gesture-context.js';
import type { ScheduleOptions } from './schedule.js';
import { createSpeechDecoder } from './speech-decoder.js';

export interface SpeechPlaybackOptions {
  /** Makes the context (default: the browser's `AudioContext` at 24 kHz, `interactive` latency). */
  createContext?: () => AudioContext;
  /** Jitter buffer: lead before the first chunk, lead after an underrun… (see `ScheduleOptions`). */
  schedule?: Partial<ScheduleOptions>;
  /** 0–1 (default 1). */
  volume?: number;
  /** Playback rate, 0.5–2 (default 1). Applied by the source nodes, so the pitch moves with it. */
  rate?: number;
  /** The first chunk of a feed was scheduled (`latencyMs`: from the feed's start to scheduling). */
  onFirstAudio?: (detail: FirstAudioDetail) => void;
  /** A chunk arrived after its slot; `underruns` counts them for this playback's lifetime. */
  onUnderrun?: (detail: { underruns: number; chunk: ScheduledChunk }) => void;
}

/** Timings of the first chunk of a feed. */
export interface FirstAudioDetail {
  /** From `feed()` being called (or `startedAt`) to the first chunk being scheduled, in ms. */
  latencyMs: number;
  /** From the first bytes' arrival to their scheduling (decode + schedule), in ms. */
  scheduleDelayMs: number;
  /** Lead the first chunk got before it sounds, in ms. */
  leadMs: number;
  chunk: ScheduledChunk;
}

/** What a feed delivered. */
export interface FeedResult {
  /** Seconds of audio scheduled from this feed. */
  seconds: number;
  /** The feed was cut short by `stop()`. */
  stopped: boolean;
}

/** `idle` (nothing to play), `playing`, `paused` (context suspended). */
export type SpeechPlaybackState = 'idle' | 'playing' | 'paused';

/**
 * The browser's own AudioContext at the speech rate. Playback runs on it in the elements (the press that
 * plays unlocks one before this code has loaded, for iOS).
 */
const defaultContext = () => speechContext();

/** Plays streamed speech; one instance per player (each has its own context, so pausing one pauses only it). */
export class SpeechPlayback {
  readonly #options: SpeechPlaybackOptions;
  #context: AudioContext | null = null;
  #gain: GainNode | null = null;
  #analyser: AnalyserNode | null = null;
  #scheduler: AudioDeltaScheduler | null = null;
  #volume: number;
  #rate: number;
  #paused = false;
  /** Cancelled by `stop()`: feeds begun before it drop what they read. */
  readonly #feeds = new LatestRun();
  #readers = new Set<AsyncIterator<Uint8Array>>();
  #levelData: Float32Array<ArrayBuffer> | null = null;

  constructor(options: SpeechPlaybackOptions = {}) {
    this.#options = options;
    this.#volume = clamp(options.volume ?? 1, 0, 1);
    this.#rate = options.rate ?? 1;
  }

  /** The context, created on first use. */
  get context(): AudioContext {
    if (!this.#context) {
      const context = this.#options.createContext?.() ?? defaultContext();
      const gain = context.createGain();
      gain.gain.value = this.#volume;
      const analyser = context.createAnalyser();
      analyser.fftSize = 512;
      gain.connect(analyser);
      analyser.connect(context.destination);
      this.#context = context;
      this.#gain = gain;
      this.#analyser = analyser;
      this.#scheduler = new AudioDeltaScheduler(context, gain, {
        schedule: this.#options.schedule,
        rate: this.#rate,
        onUnderrun: (chunk, underruns) => this.#options.onUnderrun?.({ underruns, chunk }),
      });
    }
    return this.#context;
  }

  /** The scheduler (for figures: underruns, lead, played/received). */
  get scheduler(): AudioDeltaScheduler {
    void this.context;
    return this.#scheduler!;
  }

  /** The analyser after the gain, for level meters and visualisers. */
  get analyser(): AnalyserNode {
    void this.context;
    return this.#analyser!;
  }

  get state(): SpeechPlaybackState {
    if (this.#paused) return 'paused';
    return this.#scheduler?.active || this.#readers.size ? 'playing' : 'idle';
  }

  /** 0–1. */
  get volume(): number {
    return this.#volume;
  }

  set volume(value: number) {
    this.#volume = clamp(value, 0, 1);
    if (this.#gain) this.#gain.gain.value = this.#volume;
  }

  /** Playback rate of audio scheduled from now on (0.5–2). */
  get rate(): number {
    return this.#rate;
  }

  set rate(value: number) {
    this.#rate = value;
    if (this.#scheduler) this.#scheduler.rate = value;
  }

  /** Seconds of speech played / received since the last `stop()`. */
  get played(): number {
    return this.#scheduler?.played ?? 0;
  }

  get received(): number {
    return this.#scheduler?.received ?? 0;
  }

  /** Chunks that arrived late, over this playback's lifetime. */
  get underruns(): number {
    return this.#scheduler?.underruns ?? 0;
  }

  /**
   * Call inside the user's gesture (click, keydown) before anything plays: iOS Safari only lets a
   * context start from a gesture. Resumes the context and plays one silent sample.
   */
  unlock(): void {
    const context = this.context;
    if (context.state !== 'running' && !this.#paused) void context.resume().catch(() => {});
    const buffer = context.createBuffer(1, 1, context.sampleRate);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(context.destination);
    source.onended = () => source.disconnect();
    source.start();
  }

  /**
   * Reads `chunks` (the bytes of one `client.speech.stream()`) and schedules their audio right after
   * what is already playing. Resolves once the stream is read (the audio may still be playing; see
   * {@link finish}). Rejects with the stream's error; `stop()` ends it quietly (and cancels the stream).
   */
  async feed(chunks: AsyncIterable<Uint8Array>, format: SpeechFormat, options: { startedAt?: number } = {}): Promise<FeedResult> {
    const context = this.context;
    const scheduler = this.#scheduler!;
    const feed = this.#feeds.now();
    const startedAt = options.startedAt ?? performance.now();
    if (context.state === 'suspended' && !this.#paused) void context.resume().catch(() => {});
    const decoder = createSpeechDecoder(format, (file) => context.decodeAudioData(file));
    const reader = chunks[Symbol.asyncIterator]();
    this.#readers.add(reader);
    let seconds = 0;
    let first = true;
    const schedule = (samples: Float32Array, sampleRate: number, arrivedAt: number) => {
      const chunk = scheduler.enqueue(samples, sampleRate, arrivedAt);
      if (!chunk) return;
      seconds += chunk.duration;
      if (first) {
        first = false;
        this.#options.onFirstAudio?.({
          latencyMs: chunk.scheduledAt - startedAt, scheduleDelayMs: chunk.scheduledAt - arrivedAt, leadMs: chunk.lead * 1000, chunk,
        });
      }
    };
    try {
      for (;;) {
        const result = await reader.next();
        if (!feed.current()) return { seconds, stopped: true };
        if (result.done) break;
        const arrivedAt = performance.now();
        const decoded = decoder.push(result.value);
        if (decoded) schedule(decoded.samples, decoded.sampleRate, arrivedAt);
      }
      const arrivedAt = performance.now();
      const rest = await decoder.end();
      if (!feed.current()) return { seconds, stopped: true };
      if (rest) schedule(rest.samples, rest.sampleRate, arrivedAt);
      return { seconds, stopped: false };
    } catch (error) {
      if (!feed.current()) return { seconds, stopped: true };
      throw error;
    } finally {
      this.#readers.delete(reader);
    }
  }

  /** Marks the end of what is to be said now; resolves when all of it has played (or `stop()` was called). */
  finish(): Promise<void> {
    const scheduler = this.scheduler;
    scheduler.endRun();
    return scheduler.whenDrained();
  }

  /** `feed()` then `finish()`: plays one stream to its end. */
  async play(chunks: AsyncIterable<Uint8Array>, format: SpeechFormat): Promise<FeedResult> {
    const result = await this.feed(chunks, format);
    if (!result.stopped) await this.finish();
    return result;
  }

  /** Suspends the context: the audio and the timeline stand still; streams keep being read. */
  async pause(): Promise<void> {
    this.#paused = true;
    // Suspended whatever its state: a context still resuming (unlocked by the press that started this) would
    // otherwise run once its resume settles.
    const context = this.context;
    if (context.state !== 'closed') await context.suspend();
  }

  /** Resumes after `pause()` (call inside a gesture on iOS). */
  async resume(): Promise<void> {
    this.#paused = false;
    if (this.#context && this.#context.state !== 'closed') await this.#context.resume();
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** Silences everything at once and cancels the streams being read (their requests are aborted). */
  stop(): void {
    this.#feeds.cancel();
    for (const reader of this.#readers) void reader.return?.().catch(() => {});
    this.#readers.clear();
    this.#scheduler?.stop();
    if (this.#paused) {
      this.#paused = false;
      void this.#context?.resume().catch(() => {});
    }
  }

  /** Current output level, 0–1 (RMS of the analyser's last frame). */
  level(): number {
    const analyser = this.#analyser;
    if (!analyser) return 0;
    this.#levelData ??= new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(this.#levelData);
    let sum = 0;
    for (const v of this.#levelData) sum += v * v;
    return Math.min(1, Math.sqrt(sum / this.#levelData.length));
  }

  /** Stops and closes the context. */
  async dispose(): Promise<void> {
    this.stop();
    const context = this.#context;
    this.#context = null;
    this.#scheduler = null;
    this.#gain = null;
    this.#analyser = null;
    if (context && context.state !== 'closed') await context.close().catch(() => {});
  }
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : max;
}
