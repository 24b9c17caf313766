/**
 * The words `<speech-player>` shows (kept apart from the chat's, so each bundle carries only its own).
 * Override any of them with the element's `strings` property.
 */
import type { PlatformErrorShape } from '../../client/contracts.js';
import { isOriginRefusal } from '../../client/errors.js';

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

const clock = (seconds: number): string => {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

const speechErrorMessage = (error: PlatformErrorShape): string => {
  if (isOriginRefusal(error)) return 'Speech is not available on this page.';
  if (error.type === 'network_error') return 'The speech service could not be reached.';
  if (error.type === 'stream_error') return 'The audio was cut off before it finished.';
  if (error.status === 401 || error.status === 403) return 'Speaking this text is not allowed.';
  if (error.status === 422 || error.status === 400) return 'The speech request was not accepted.';
  if (error.status === 429) return 'Too many requests. Try again in a moment.';
  if (error.status === 503) return 'The speech service is busy or not installed.';
  return 'The text could not be spoken.';
};

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

/** Speech-player defaults with the host's overrides applied. */
export function resolveSpeechPlayerStrings(overrides?: Partial<SpeechPlayerStrings> | null): SpeechPlayerStrings {
  return overrides ? { ...defaultSpeechPlayerStrings, ...overrides } : defaultSpeechPlayerStrings;
}
