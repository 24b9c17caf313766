/**
 * Registers `<audio-transcriber>`. Importing this module defines the tag once; a second copy of the kit
 * on the page finds it defined and leaves it alone. To use another tag name, do not import this module:
 * `customElements.define('my-transcriber', class extends AudioTranscriber {})`.
 */
import { AudioTranscriber } from './audio-transcriber.js';
import { defineOnce } from '../internal/define-once.js';

export { AudioTranscriber };
/** For pages loading the CDN build: `import { registerLocale, loadLocale } from '…/audio-transcriber.js'` adds a language, or fetches a shipped one ahead of time. */
export { registerLocale, loadLocale } from '../internal/locale.js';

/** Registers `AudioTranscriber` as `audio-transcriber` unless the name is taken (then warns if another class holds it). Idempotent. */
export function defineAudioTranscriber(): void {
  defineOnce('audio-transcriber', AudioTranscriber);
}

defineAudioTranscriber();

declare global {
  interface HTMLElementTagNameMap {
    'audio-transcriber': AudioTranscriber;
  }
}
