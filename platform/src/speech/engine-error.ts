/** Speech engine failures as HTTP answers, for the speech routes and the voice samples of the voices routes. */
import { engineBusy, engineUnavailable } from '../http/errors.js';
import { SpeechEngineBusyError, SpeechEngineUnavailableError } from '../engines/speech/types.js';

/** The HTTP error for a speech engine failure (503, or 503 + Retry-After when busy); other errors unchanged. */
export function speechEngineError(err: unknown): unknown {
  if (err instanceof SpeechEngineUnavailableError) return engineUnavailable(err.message);
  if (err instanceof SpeechEngineBusyError) return engineBusy(err.message);
  return err;
}
