/**
 * Registers `<speech-player>`. Importing this module defines the tag once; a second copy of the kit on
 * the page finds it defined and leaves it alone. To use another tag name, do not import this module:
 * `customElements.define('my-player', class extends SpeechPlayer {})`.
 */
import { SpeechPlayer } from './speech-player.js';

export { SpeechPlayer };

/** Registers `SpeechPlayer` as `speech-player` unless the name is taken (then warns if another class holds it). Idempotent. */
export function defineSpeechPlayer(): void {
  if (typeof customElements === 'undefined') return; // server-side rendering: nothing to register
  const existing = customElements.get('speech-player');
  if (!existing) customElements.define('speech-player', SpeechPlayer);
  else if (existing !== SpeechPlayer) console.warn('[parley] <speech-player> is already defined by another class (another copy of parley-kit?); keeping that one.');
}

defineSpeechPlayer();

declare global {
  interface HTMLElementTagNameMap {
    'speech-player': SpeechPlayer;
  }
}
