/**
 * The words `<audio-transcriber>` shows or announces, kept beside the element (the shared strings.ts
 * holds the other elements'), in English; other languages come from the locale catalogues
 * (src/elements/locales/, `registerLocale()`), chosen by the element's `lang`. Hosts change any word
 * with a partial object in the `strings` property.
 */
import type { TranscriptionErrorKind } from './events.js';
import { localize } from '../internal/locale-registry.js';
import type { LocaleHost } from '../internal/locale-registry.js';
import { speakerNumber } from '../internal/error-kinds.js';

/** The user-visible strings of `<audio-transcriber>`. */
export interface AudioTranscriberStrings {
  /** Accessible name of the element (a group) when it has no `heading`. */
  transcriberLabel: string;
  startRecording: string;
  stopRecording: string;
  /** Label of the record button in push-to-talk mode (held down, or Space held while it is focused). */
  holdToTalk: string;
  releaseToStop: string;
  /** Accessible name of the level meter. */
  levelLabel: string;
  /** Accessible name of the elapsed recording time. */
  elapsedLabel: string;
  /** The drop zone, which is also the file picker button. */
  chooseFile: string;
  dropHint: string;
  cancel: string;
  language: string;
  /** The language option that lets the platform detect it. */
  autoLanguage: string;
  /** Beside the picker when `timestamps` is set and a language is chosen. */
  timesNeedAuto: string;
  /** Heading of the result area and accessible name of the transcript. */
  transcript: string;
  segments: string;
  copy: string;
  copied: string;
  copyFailed: string;
  clear: string;
  emptyTranscript: string;
  microphone: string;
  /** `Speaker 1` from `speaker_1`. */
  speaker: (speakerId: string) => string;
  /** Marks a result whose stream broke before it finished. */
  interruptedNote: string;
  /** Said by the status region. */
  listening: string;
  finishing: string;
  transcribingFile: (name: string) => string;
  cancelled: string;
  nothingHeard: string;
  /** Announced when a text is final (not for every partial). */
  finalAnnouncement: (text: string) => string;
  /**
   * What went wrong and what to do about it, by kind. The built-in sentences leave the platform's or
   * browser's own words (`platformMessage`) out: those go to `parley-transcription-error` (`detail`) and
   * the console. An override may still show them.
   */
  errorMessage: (kind: TranscriptionErrorKind, platformMessage: string) => string;
}

const errorMessage = (kind: TranscriptionErrorKind): string => {
  switch (kind) {
    case 'permission-denied':
      return 'Microphone access is blocked. Allow the microphone for this site in the browser’s site settings (the icon next to the address), then try again.';
    case 'no-microphone':
      return 'No microphone was found. Connect one or turn it on in your system settings, then try again.';
    case 'audio-not-started':
      return 'The microphone could not start.';
    case 'microphone-busy':
      return 'The microphone is being used by another application. Close it, then try again.';
    case 'unsupported':
      return 'Recording is not available in this browser or on this page (it needs a secure https page). You can upload an audio file instead.';
    case 'not-audio':
      return 'That file is not audio. Choose an audio file, for example WAV, MP3, FLAC or Ogg.';
    case 'too-large':
      return 'That file is too large to transcribe. Choose a shorter recording or a smaller file.';
    case 'network':
      return 'The transcription service could not be reached. Check your connection and try again.';
    case 'interrupted':
      return 'The transcription was interrupted before it finished. The text received so far is kept.';
    case 'platform':
      return 'The transcription service could not transcribe this audio. Try again, or try another file.';
    case 'not-available':
      return 'Transcription is not available on this page.';
  }
};

const twoDigits = (n: number): string => String(n).padStart(2, '0');

/** `mm:ss.s`, e.g. `01:04.3`. */
export function formatSegmentTime(seconds: number): string {
  const tenths = Math.max(0, Math.round(seconds * 10));
  const minutes = Math.floor(tenths / 600);
  const rest = (tenths % 600) / 10;
  return `${twoDigits(minutes)}:${rest < 10 ? '0' : ''}${rest.toFixed(1)}`;
}

/** `m:ss` of a recording's elapsed time. */
export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${twoDigits(s % 60)}`;
}

/** English defaults. */
export const defaultAudioTranscriberStrings: AudioTranscriberStrings = {
  transcriberLabel: 'Audio transcriber',
  startRecording: 'Start recording',
  stopRecording: 'Stop recording',
  holdToTalk: 'Hold to talk',
  releaseToStop: 'Release to stop',
  levelLabel: 'Microphone level',
  elapsedLabel: 'Recording time',
  chooseFile: 'Choose an audio file',
  dropHint: 'or drop one here',
  cancel: 'Cancel',
  language: 'Language',
  autoLanguage: 'Auto',
  timesNeedAuto: 'Segment times are only available with Auto.',
  transcript: 'Transcript',
  segments: 'Segments',
  copy: 'Copy',
  copied: 'Copied',
  copyFailed: 'Could not copy: the browser refused access to the clipboard.',
  clear: 'Clear',
  emptyTranscript: 'Record or upload audio to see its text here.',
  microphone: 'Microphone',
  speaker: (id) => {
    const n = speakerNumber(id);
    return n ? `Speaker ${n}` : id;
  },
  interruptedNote: 'Interrupted: this is the text received before the stream broke.',
  listening: 'Recording',
  finishing: 'Finishing the transcript…',
  transcribingFile: (name) => `Transcribing ${name}…`,
  cancelled: 'Cancelled',
  nothingHeard: 'Nothing was heard.',
  finalAnnouncement: (text) => `Transcribed: ${text}`,
  errorMessage,
};

/** The words of an `<audio-transcriber>`: in `host`'s language when it is given (see locale.ts), with the host's overrides applied. */
export function resolveAudioTranscriberStrings(overrides?: Partial<AudioTranscriberStrings> | null, host?: LocaleHost | null): AudioTranscriberStrings {
  return localize(host, 'audioTranscriber', defaultAudioTranscriberStrings, overrides);
}
