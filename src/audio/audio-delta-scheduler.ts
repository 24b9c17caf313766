/**
 * Gapless playback of audio that arrives in pieces: every decoded chunk becomes an
 * `AudioBufferSourceNode` started exactly where the previous one ends, after a small lead (the jitter
 * buffer). A chunk that arrives after its slot is an underrun: it is counted and the timeline restarts
 * with a longer lead. `stop()` silences everything scheduled at once.
 */
import {
  DEFAULT_SCHEDULE, contentPlayed, initialSchedule, placeChunk,
  type ScheduleOptions, type ScheduleState, type ScheduledSpan,
} from './schedule.js';

/** The contexts the scheduler plays into: the browser's (SpeechPlayback), or an offline one (tests, rendering). */
export type SpeechAudioContext = BaseAudioContext;

/** What happened to one chunk: where it went on the timeline, and how quickly. */
export interface ScheduledChunk {
  /** Context time the chunk starts at. */
  start: number;
  end: number;
  /** Seconds of audio in the chunk (at rate 1). */
  duration: number;
  /** Seconds between scheduling and the start (the lead actually given). */
  lead: number;
  /** `performance.now()` when the chunk arrived (given by the caller) and when it was scheduled. */
  arrivedAt: number;
  scheduledAt: number;
  /** First chunk of a run (the timeline was idle). */
  first: boolean;
  /** Arrived after its slot: counted as an underrun and rescheduled with a new lead. */
  underrun: boolean;
}

export interface AudioDeltaSchedulerOptions {
  /** Jitter buffer (see {@link ScheduleOptions}). */
  schedule?: Partial<ScheduleOptions>;
  /** Playback rate of the chunks scheduled from now on (0.5–2; pitch changes with it). Default 1. */
  rate?: number;
  /** Called for every chunk that arrived late. */
  onUnderrun?: (chunk: ScheduledChunk, underruns: number) => void;
}

interface Playing {
  source: AudioBufferSourceNode;
  span: ScheduledSpan;
}

/** Schedules decoded chunks back to back on one context. */
export class AudioDeltaScheduler {
  readonly context: SpeechAudioContext;
  readonly #destination: AudioNode;
  readonly #options: ScheduleOptions;
  readonly #onUnderrun?: AudioDeltaSchedulerOptions['onUnderrun'];
  #state: ScheduleState;
  #rate: number;
  #playing = new Set<Playing>();
  /** Content seconds of chunks that have finished playing (kept as a sum, not as spans). */
  #playedBefore = 0;
  #received = 0;
  #runEnded = false;
  #drainWaiters: Array<() => void> = [];

  constructor(context: SpeechAudioContext, destination: AudioNode, options: AudioDeltaSchedulerOptions = {}) {
    this.context = context;
    this.#destination = destination;
    this.#options = { ...DEFAULT_SCHEDULE, ...options.schedule };
    this.#state = initialSchedule(this.#options);
    this.#rate = clampRate(options.rate ?? 1);
    this.#onUnderrun = options.onUnderrun;
  }

  /** Playback rate of chunks scheduled from now on. */
  get rate(): number {
    return this.#rate;
  }

  set rate(value: number) {
    this.#rate = clampRate(value);
  }

  /** Chunks that arrived after their slot, since this scheduler was made. */
  get underruns(): number {
    return this.#state.underruns;
  }

  /** The lead the next (re)start will get, in seconds (grows after underruns). */
  get lead(): number {
    return this.#state.lead;
  }

  /** Context time at which the scheduled audio ends; null when nothing is scheduled. */
  get scheduledUntil(): number | null {
    return this.#state.nextStart;
  }

  /** Seconds of audio received (scheduled) since the last `stop()`. */
  get received(): number {
    return this.#received;
  }

  /** Seconds of audio played since the last `stop()` (stands still while the context is suspended). */
  get played(): number {
    const now = this.context.currentTime;
    return this.#playedBefore + contentPlayed([...this.#playing].map((p) => p.span), now);
  }

  /** Whether any scheduled audio has not finished playing. */
  get active(): boolean {
    return this.#playing.size > 0;
  }

  /**
   * Schedules mono `samples` at `sampleRate` right after what is already scheduled.
   * `arrivedAt` is the `performance.now()` at which the bytes arrived (for latency figures).
   */
  enqueue(samples: Float32Array, sampleRate: number, arrivedAt = performance.now()): ScheduledChunk | null {
    if (samples.length === 0) return null;
    const buffer = this.context.createBuffer(1, samples.length, sampleRate);
    buffer.copyToChannel(samples as Float32Array<ArrayBuffer>, 0); // the DOM's type refuses shared memory; a shared buffer copies the same
    return this.#schedule(buffer, samples.length / sampleRate, arrivedAt);
  }

  /** Schedules a decoded buffer (a compressed file decoded by the browser) like a chunk. */
  enqueueBuffer(buffer: AudioBuffer, arrivedAt = performance.now()): ScheduledChunk | null {
    if (buffer.length === 0) return null;
    return this.#schedule(buffer, buffer.duration, arrivedAt);
  }

  /**
   * Marks the end of a run (the stream finished): the next chunk after the scheduled audio has played
   * out starts a new run (not an underrun); one arriving before that still joins without a gap.
   */
  endRun(): void {
    this.#runEnded = true;
    this.#settleDrain();
  }

  /** Resolves once everything scheduled so far has played (at once when nothing is playing). */
  whenDrained(): Promise<void> {
    if (!this.#playing.size) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Silences everything scheduled, at once, and resets the timeline (the learned lead and the underrun count stay). */
  stop(): void {
    for (const { source } of this.#playing) {
      source.onended = null;
      try {
        source.stop();
      } catch {
        // never started (the context is suspended before its start time): disconnecting is enough
      }
      source.disconnect();
    }
    this.#playing.clear();
    this.#state = { ...this.#state, nextStart: null };
    this.#playedBefore = 0;
    this.#received = 0;
    this.#runEnded = false;
    this.#settleDrain();
  }

  #schedule(buffer: AudioBuffer | ReturnType<SpeechAudioContext['createBuffer']>, duration: number, arrivedAt: number): ScheduledChunk {
    const now = this.context.currentTime;
    if (this.#runEnded) {
      this.#runEnded = false;
      // The previous run has played out: this one starts afresh rather than counting as late.
      if (this.#state.nextStart !== null && this.#state.nextStart < now + this.#options.margin) this.#state = { ...this.#state, nextStart: null };
    }
    const slot = placeChunk(this.#state, now, duration, this.#rate, this.#options);
    this.#state = slot.state;
    const source = this.context.createBufferSource();
    source.buffer = buffer as AudioBuffer;
    source.playbackRate.value = this.#rate;
    source.connect(this.#destination);
    const playing: Playing = { source, span: { start: slot.start, end: slot.end, content: duration } };
    source.onended = () => {
      if (!this.#playing.delete(playing)) return;
      this.#playedBefore += duration;
      source.disconnect();
      this.#settleDrain();
    };
    source.start(slot.start);
    this.#playing.add(playing);
    this.#received += duration;
    const chunk: ScheduledChunk = {
      start: slot.start, end: slot.end, duration, lead: slot.start - now,
      arrivedAt, scheduledAt: performance.now(), first: slot.first, underrun: slot.underrun,
    };
    if (slot.underrun) this.#onUnderrun?.(chunk, this.#state.underruns);
    return chunk;
  }

  #settleDrain(): void {
    if (this.#playing.size) return;
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function clampRate(rate: number): number {
  return Number.isFinite(rate) ? Math.min(2, Math.max(0.5, rate)) : 1;
}
