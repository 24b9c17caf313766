/**
 * Audio unlocked inside a user gesture before the audio code is loaded. iOS Safari lets an AudioContext
 * start only from a gesture, while the kit loads its audio code (SpeechPlayback; for the microphone,
 * its capture) on the first press that needs it: the press makes the browser's own
 * AudioContext there and then, resumed and given one silent sample, and the player plays into that
 * context once its code has arrived (SpeechPlayback's `createContext`). No imports: this module rides in the elements' first load.
 */

/** The platform's speech rate (Hz; its `pcm` format is 24 kHz mono), the rate speech contexts run at. */
export const SPEECH_SAMPLE_RATE = 24_000;

/** A new browser AudioContext for speech: the speech rate, `interactive` latency (throws where the browser refuses one). */
export function speechContext(): AudioContext {
  return new globalThis.AudioContext({ sampleRate: SPEECH_SAMPLE_RATE, latencyHint: 'interactive' });
}

/**
 * `context` (or, when it is missing or closed, a new {@link speechContext}) resumed and
 * unlocked with one silent sample, inside the current gesture. Null where the browser has no AudioContext;
 * `context` as it was when the browser refuses one (too many contexts, a sandbox).
 */
export function unlockedContext(context: AudioContext | null): AudioContext | null {
  if (!(globalThis.AudioContext as typeof AudioContext | undefined)) return context;
  try {
    const unlocked = context && context.state !== 'closed' ? context : speechContext();
    if (unlocked.state !== 'running') void unlocked.resume().catch(() => {});
    const source = unlocked.createBufferSource();
    source.buffer = unlocked.createBuffer(1, 1, unlocked.sampleRate);
    source.connect(unlocked.destination);
    source.onended = () => source.disconnect();
    source.start();
    return unlocked;
  } catch {
    return context;
  }
}
