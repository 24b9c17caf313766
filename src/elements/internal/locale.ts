/**
 * Languages of the four elements. Each element's words come from a locale catalogue chosen by its
 * language: its own `lang` attribute, else the nearest ancestor's (across shadow roots), else
 * `<html lang>`, else `navigator.language`. A tag falls back along its prefixes and then to English, per
 * string: `fr-CA` → `fr` → `en`. The host's `strings` property still wins over any catalogue.
 *
 * English is built in (each element's strings.ts); the other shipped languages load when an element needs
 * one (locale-registry.ts, which finds each element's words). `registerLocale()` adds a language, or
 * replaces a shipped one, for all four elements. This module is the public face: the catalogue's types,
 * `registerLocale`, `loadLocale`, `shippedLocales`, and what a catalogue module needs.
 */
import type { AgentChatStrings } from '../agent-chat/strings.js';
import type { SpeechPlayerStrings } from '../speech-player/strings.js';
import type { AudioTranscriberStrings } from '../audio-transcriber/strings.js';
import type { DocOcrViewerStrings } from '../doc-ocr-viewer/strings.js';
import { register } from './locale-registry.js';
import type { LocalePart } from './locale-registry.js';

/** Every string of every element in one language (what the shipped catalogues provide). */
export interface CompleteLocaleCatalogue extends Record<LocalePart, object> {
  agentChat: AgentChatStrings;
  speechPlayer: SpeechPlayerStrings;
  audioTranscriber: AudioTranscriberStrings;
  docOcrViewer: DocOcrViewerStrings;
}

/** A language for `registerLocale()`: any element, any string may be left out (it falls back, in the end to English). */
export type LocaleCatalogue = { [P in keyof CompleteLocaleCatalogue]?: Partial<CompleteLocaleCatalogue[P]> };

export type { LocaleHost, LocalePart } from './locale-registry.js';
export { languageOf, loadLocale, localeChain, localize, shippedLocales } from './locale-registry.js';

// What a catalogue module needs, in one import (see locales/fr.ts).
export { chatErrorKind, speechErrorKind, speakerNumber } from './error-kinds.js';
export type { ChatErrorKind, SpeechErrorKind } from './error-kinds.js';
export { counter, numberIn, clock, fileSizeIn } from './locale-format.js';
export type { Counter, PluralForms } from './locale-format.js';

/**
 * Adds a language, or replaces one (a shipped one included), for all four elements, and re-renders the
 * elements using it. Strings left out fall back to the language's shorter tag (`fr` for `fr-CA`), then
 * to English. Registering `en` changes the English words themselves.
 */
export function registerLocale(tag: string, catalogue: LocaleCatalogue): void {
  register(tag, catalogue);
}
