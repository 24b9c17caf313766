/**
 * The timing rules of gapless playback, as pure functions of context time (seconds), so they can be
 * tested without a browser. {@link AudioDeltaScheduler} applies them to Web Audio nodes.
 */

/** Jitter-buffer settings of a schedule. */
export interface ScheduleOptions {
  /** Lead before the first chunk of a run plays (seconds). Default 0.05. */
  lead: number;
  /** Lead after an underrun: the buffer grows so the next run survives more jitter. Default 0.15. */
  underrunLead: number;
  /** Largest lead the buffer grows to after repeated underruns. Default 0.5. */
  maxLead: number;
  /**
   * A chunk due sooner than this (seconds) is late: starting it exactly on time cannot be promised
   * (the audio thread renders 128 frames ahead), so it counts as an underrun. Default 0.003.
   */
  margin: number;
}

export const DEFAULT_SCHEDULE: ScheduleOptions = { lead: 0.05, underrunLead: 0.15, maxLead: 0.5, margin: 0.003 };

/** Where the timeline stands: the end of the last scheduled chunk, or null when nothing is queued. */
export interface ScheduleState {
  /** Context time at which the next chunk should start (the end of the previous one); null = idle. */
  nextStart: number | null;
  /** Lead used for the next (re)start. */
  lead: number;
  underruns: number;
}

/** A fresh timeline. */
export function initialSchedule(options: ScheduleOptions = DEFAULT_SCHEDULE): ScheduleState {
  return { nextStart: null, lead: options.lead, underruns: 0 };
}

/** Where one chunk goes, and the timeline after it. */
export interface ChunkSlot {
  /** Context time at which the chunk starts. */
  start: number;
  /** Context time at which it ends (start + duration / rate). */
  end: number;
  /** The chunk arrived after its slot: the timeline restarted with a longer lead. */
  underrun: boolean;
  /** The timeline had been idle: this chunk starts a new run (first audio). */
  first: boolean;
  state: ScheduleState;
}

/**
 * Places a chunk of `duration` seconds of audio (played at `rate`) arriving at context time `now`:
 * straight after the previous chunk when that is still in the future, otherwise `lead` from now
 * (a first chunk, or an underrun that grows the lead for the runs that follow).
 */
export function placeChunk(
  state: ScheduleState,
  now: number,
  duration: number,
  rate = 1,
  options: ScheduleOptions = DEFAULT_SCHEDULE,
): ChunkSlot {
  const length = duration / (rate > 0 ? rate : 1);
  if (state.nextStart !== null && state.nextStart >= now + options.margin) {
    const start = state.nextStart;
    return { start, end: start + length, underrun: false, first: false, state: { ...state, nextStart: start + length } };
  }
  if (state.nextStart === null) {
    const start = now + state.lead;
    return { start, end: start + length, underrun: false, first: true, state: { ...state, nextStart: start + length } };
  }
  const lead = Math.min(options.maxLead, Math.max(options.underrunLead, state.lead * 1.5));
  const start = now + lead;
  return {
    start, end: start + length, underrun: true, first: false,
    state: { nextStart: start + length, lead, underruns: state.underruns + 1 },
  };
}

/** A chunk on the timeline: context times, and how many seconds of speech it holds. */
export interface ScheduledSpan {
  start: number;
  end: number;
  /** Seconds of audio content (at rate 1). */
  content: number;
}

/** Seconds of audio content played by context time `now` across `spans` (partial spans count pro rata). */
export function contentPlayed(spans: readonly ScheduledSpan[], now: number): number {
  let played = 0;
  for (const span of spans) {
    if (now <= span.start) continue;
    const length = span.end - span.start;
    if (now >= span.end || length <= 0) played += span.content;
    else played += span.content * ((now - span.start) / length);
  }
  return played;
}
