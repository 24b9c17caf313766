/**
 * The events of `<audio-transcriber>`, added to the kit's typed event map (`ParleyEventDetails` and
 * `GlobalEventHandlersEventMap`) from here so the element's folder stays self-contained.
 */
import type { TranscriptionSegment } from '../../client/index.js';
import type { TranscriptionErrorKind, TranscriptionSource } from '../../client/transcription-session.js';

// Where a transcript came from, and why one failed: the transcription session's words for them.
export type { TranscriptionErrorKind, TranscriptionSource };

/** Detail of `parley-transcription-start`: recording started, or a file is being sent. */
export interface ParleyTranscriptionStartDetail {
  source: TranscriptionSource;
}

/** Detail of `parley-transcription-partial`: the words recognised so far in this recording or file. */
export interface ParleyTranscriptionPartialDetail {
  text: string;
}

/** Detail of `parley-transcription-final`: a finished transcript (one recording or one file). */
export interface ParleyTranscriptionFinalDetail {
  text: string;
  /** Segments with times in seconds from the start of the audio (empty unless the platform sent them). */
  segments: TranscriptionSegment[];
  language: string | null;
  source: TranscriptionSource;
}

/**
 * Detail of `parley-transcription-error`: what failed (`kind`), the sentence shown (`message`, from the
 * strings by kind), and the platform's or the browser's own words (`detail`, for the site owner; may be empty).
 */
export interface ParleyTranscriptionErrorDetail {
  kind: TranscriptionErrorKind;
  message: string;
  detail: string;
}

declare module '../internal/events.js' {
  interface ParleyEventDetails {
    'parley-transcription-start': ParleyTranscriptionStartDetail;
    'parley-transcription-partial': ParleyTranscriptionPartialDetail;
    'parley-transcription-final': ParleyTranscriptionFinalDetail;
    'parley-transcription-error': ParleyTranscriptionErrorDetail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'parley-transcription-start': CustomEvent<ParleyTranscriptionStartDetail>;
    'parley-transcription-partial': CustomEvent<ParleyTranscriptionPartialDetail>;
    'parley-transcription-final': CustomEvent<ParleyTranscriptionFinalDetail>;
    'parley-transcription-error': CustomEvent<ParleyTranscriptionErrorDetail>;
  }
}
