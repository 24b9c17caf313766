/**
 * Whether an AudioContext really started after a press. Resuming a context does not mean it runs: with no
 * audio output device (Firefox keeps every context suspended then) or a browser that never lets it start,
 * `resume()` neither resolves nor fails and the context stays `suspended`. The kit waits a short, fixed time
 * for `running`, then reports in words ("No sound can be played on this device", "The microphone could not
 * start") instead of a player stuck at 0:00 or a microphone that hears nothing.
 */

/**
 * How long after a press a context may take to run before the kit says it cannot (ms). Firefox ESR opens its
 * output in about 2 s on a PulseAudio null sink (measured here); Bluetooth outputs can take as long to wake.
 */
export const AUDIO_START_TIMEOUT_MS = 5000;

/** What {@link audioStarted} reads of a context. */
export interface StartingContext {
  readonly state: string;
  addEventListener(type: 'statechange', listener: () => void): void;
  removeEventListener(type: 'statechange', listener: () => void): void;
}

/** How often the state is read besides its `statechange` event (kept from when contexts were wrapped by a library that did not always forward it). */
const POLL_MS = 50;

/**
 * Resolves true once `context` is `running` (at once when it already is), false when it is not running
 * `timeoutMs` after the call, or was closed. Never rejects. The state is read on its `statechange` event and
 * every {@link POLL_MS}, so a context that started without the event is never waited on until the timeout.
 */
export function audioStarted(context: StartingContext, timeoutMs = AUDIO_START_TIMEOUT_MS): Promise<boolean> {
  if (context.state === 'running') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      clearInterval(poll);
      context.removeEventListener('statechange', changed);
      resolve(context.state === 'running');
    };
    const changed = () => {
      if (context.state === 'running' || context.state === 'closed') done();
    };
    const timer = setTimeout(done, timeoutMs);
    const poll = setInterval(changed, POLL_MS);
    context.addEventListener('statechange', changed);
  });
}
