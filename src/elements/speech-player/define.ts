/**
 * Registers `<speech-player>`. Importing this module defines the tag once; a second copy of the kit on
 * the page finds it defined and leaves it alone. To use another tag name, do not import this module:
 * `customElements.define('my-player', class extends SpeechPlayer {})`.
 */
import { SpeechPlayer } from './speech-player.js';
import { defineOnce } from '../internal/define-once.js';

export { SpeechPlayer };
/** For pages loading the CDN build: `import { registerLocale, loadLocale } from '…/speech-player.js'` adds a language, or fetches a shipped one ahead of time. */
export { registerLocale, loadLocale } from '../internal/locale.js';

/** Registers `SpeechPlayer` as `speech-player` unless the name is taken (then warns if another class holds it). Idempotent. */
export function defineSpeechPlayer(): void {
  defineOnce('speech-player', SpeechPlayer);
}

defineSpeechPlayer();

declare global {
  interface HTMLElementTagNameMap {
    'speech-player': SpeechPlayer;
  }
}
