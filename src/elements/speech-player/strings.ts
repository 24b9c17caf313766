/**
 * The words `<speech-player>` shows (kept apart from the chat's, so each bundle carries only its own), in
 * English; other languages come from the locale catalogues (src/elements/locales/, `registerLocale()`),
 * chosen by the element's `lang`. Override any of them with the element's `strings` property.
 */
import type { PlatformErrorShape } from '../../client/contracts.js';
import { speechErrorKind } from '../internal/error-kinds.js';
import type { SpeechErrorKind } from '../internal/error-kinds.js';
import { localize } from '../internal/locale-registry.js';
import type { LocaleHost } from '../internal/locale-registry.js';
import { clock, numberIn } from '../internal/locale-format.js';

const num = numberIn('en');

/** The user-visible strings of `<speech-player>`. */
export interface SpeechPlayerStrings {
  /** Accessible name of the player (a group of controls). */
  playerLabel: string;
  play: string;
  pause: string;
  resume: string;
  stop: string;
  voice: string;
  /** The voice option that leaves the choice to the platform. */
  defaultVoice: string;
  rate: string;
  /** An option of the speed picker: `1.25×` (the number as the language writes it). */
  rateOption: (rate: number) => string;
  /** Accessible name of the progress bar. */
  progressLabel: string;
  /** `0:03 / 0:07`: seconds played, seconds received. */
  progressText: (played: number, received: number) => string;
  /** Said by the status region. */
  loading: string;
  playing: string;
  paused: string;
  stopped: string;
  ended: string;
  nothingToSay: string;
  errorMessage: (error: PlatformErrorShape) => string;
}

const SPEECH_ERRORS: Record<SpeechErrorKind, string> = {
  unavailable: 'Speech is not available on this page.',
  'no-sound': 'No sound can be played on this device.',
  network: 'The speech service could not be reached.',
  cut: 'The audio was cut off before it finished.',
  forbidden: 'Speaking this text is not allowed.',
  rejected: 'The speech request was not accepted.',
  'rate-limited': 'Too many requests. Try again in a moment.',
  busy: 'The speech service is busy or not installed.',
  other: 'The text could not be spoken.',
};

const speechErrorMessage = (error: PlatformErrorShape): string => SPEECH_ERRORS[speechErrorKind(error)];

/** English defaults of `<speech-player>`. */
export const defaultSpeechPlayerStrings: SpeechPlayerStrings = {
  playerLabel: 'Speech player',
  play: 'Play',
  pause: 'Pause',
  resume: 'Resume',
  stop: 'Stop',
  voice: 'Voice',
  defaultVoice: 'Default voice',
  rate: 'Speed',
  rateOption: (rate) => `${num(rate)}×`,
  progressLabel: 'Played',
  progressText: (played, received) => `${clock(played)} / ${clock(received)}`,
  loading: 'Preparing speech…',
  playing: 'Playing',
  paused: 'Paused',
  stopped: 'Stopped',
  ended: 'Finished',
  nothingToSay: 'There is no text to speak.',
  errorMessage: speechErrorMessage,
};

/** The words of a `<speech-player>`: in `host`'s language when it is given (see locale.ts), with the host's overrides applied. */
export function resolveSpeechPlayerStrings(overrides?: Partial<SpeechPlayerStrings> | null, host?: LocaleHost | null): SpeechPlayerStrings {
  return localize(host, 'speechPlayer', defaultSpeechPlayerStrings, overrides);
}
