/**
 * Voice input failures as values an element can show: {@link VoiceInputFailure} is an Error that is also
 * a `VoiceInputError` (kind + human message + cause), and {@link microphoneFailure} maps what
 * `getUserMedia`, Web Audio and the transcription client throw to one of the kinds.
 */
import type { PlatformErrorShape, VoiceInputError, VoiceInputErrorKind } from '../../client/contracts.js';

/** An Error carrying a {@link VoiceInputErrorKind}; what `VoiceInputApi.start()` rejects with. */
export class VoiceInputFailure extends Error implements VoiceInputError {
  readonly kind: VoiceInputErrorKind;
  override readonly cause?: unknown;

  constructor(kind: VoiceInputErrorKind, message: string, cause?: unknown) {
    super(message);
    this.name = 'VoiceInputFailure';
    this.kind = kind;
    this.cause = cause;
  }

  /** The plain `VoiceInputError` value (for the `error` event). */
  toJSON(): VoiceInputError {
    return { kind: this.kind, message: this.message, cause: this.cause };
  }
}

const MICROPHONE_MESSAGES: Record<string, [VoiceInputErrorKind, string]> = {
  NotAllowedError: ['permission-denied', 'Microphone access was denied. Allow the microphone for this site in the browser and try again.'],
  SecurityError: ['permission-denied', 'Microphone access is blocked here (the page must be served over HTTPS and the frame allowed to use the microphone).'],
  NotFoundError: ['no-microphone', 'No microphone was found. Connect one and try again.'],
  OverconstrainedError: ['no-microphone', 'The chosen microphone is not available. Pick another one and try again.'],
  NotReadableError: ['microphone-busy', 'The microphone could not be started: another application may be using it.'],
  AbortError: ['microphone-busy', 'The microphone could not be started. Try again.'],
  NotSupportedError: ['unsupported', 'This browser cannot record audio here.'],
};

/** Maps an error of `getUserMedia` or the audio graph to a {@link VoiceInputFailure}. */
export function microphoneFailure(error: unknown): VoiceInputFailure {
  if (error instanceof VoiceInputFailure) return error;
  const name = typeof error === 'object' && error !== null && 'name' in error ? String((error as { name: unknown }).name) : '';
  const known = MICROPHONE_MESSAGES[name];
  if (known) return new VoiceInputFailure(known[0], known[1], error);
  const detail = error instanceof Error && error.message ? ` (${error.message})` : '';
  return new VoiceInputFailure('microphone-busy', `The microphone could not be started${detail}.`, error);
}

/** Maps an error of the transcription client (a PlatformError, or anything thrown) to a {@link VoiceInputFailure}. */
export function transcriptionFailure(error: unknown): VoiceInputFailure {
  if (error instanceof VoiceInputFailure) return error;
  const shape = error as Partial<PlatformErrorShape> | null;
  const message = typeof shape?.message === 'string' && shape.message ? shape.message : String(error);
  if (typeof shape?.status === 'number' && shape.status > 0) {
    return new VoiceInputFailure('platform', `Transcription failed: ${message}`, error);
  }
  return new VoiceInputFailure('network', `The connection to the transcription service was lost: ${message}`, error);
}
