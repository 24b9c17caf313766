/**
 * What went wrong, as a word each language turns into its own sentence: the strings of every language
 * sort a platform error the same way, so a translation only writes the sentences.
 */
import type { PlatformErrorShape } from '../../client/contracts.js';
import { AUDIO_NOT_STARTED, refusalKind } from '../../client/errors.js';

/** Why a chat request failed, as `<agent-chat>` tells the visitor. */
export type ChatErrorKind =
  | 'unavailable' | 'no-sound' | 'network' | 'cut' | 'forbidden' | 'not-found' | 'too-long' | 'rejected' | 'rate-limited' | 'server' | 'other';

export function chatErrorKind(error: PlatformErrorShape): ChatErrorKind {
  // The relay does not serve this site, or refuses a model, agent or scope: the site owner is told in the
  // console (client/errors.ts); the visitor cannot fix it. A refused type is 'rejected' (see refusalKind).
  const refused = refusalKind(error);
  if (refused === 'origin' || refused === 'not-allowed') return 'unavailable';
  if (refused === 'type') return 'rejected';
  if (error.code === AUDIO_NOT_STARTED) return 'no-sound';
  if (error.type === 'network_error') return 'network';
  if (error.type === 'stream_error') return 'cut';
  if (error.status === 401 || error.status === 403) return 'forbidden';
  if (error.status === 404) return 'not-found';
  if (error.status === 413) return 'too-long';
  if (error.status === 422 || error.status === 400) return 'rejected';
  if (error.status === 429) return 'rate-limited';
  if (error.type === 'server_error' || error.status >= 500) return 'server';
  return 'other';
}

/** Why speech failed, as `<speech-player>` tells the visitor. */
export type SpeechErrorKind = 'unavailable' | 'no-sound' | 'network' | 'cut' | 'forbidden' | 'rejected' | 'rate-limited' | 'busy' | 'other';

export function speechErrorKind(error: PlatformErrorShape): SpeechErrorKind {
  const refused = refusalKind(error);
  if (refused === 'origin' || refused === 'not-allowed') return 'unavailable';
  if (refused) return 'rejected';
  if (error.code === AUDIO_NOT_STARTED) return 'no-sound';
  if (error.type === 'network_error') return 'network';
  if (error.type === 'stream_error') return 'cut';
  if (error.status === 401 || error.status === 403) return 'forbidden';
  if (error.status === 422 || error.status === 400) return 'rejected';
  if (error.status === 429) return 'rate-limited';
  if (error.status === 503) return 'busy';
  return 'other';
}

/** `1` from `speaker_1`, or null when the id ends with no number. */
export function speakerNumber(speakerId: string): string | null {
  return /(\d+)$/.exec(speakerId)?.[1] ?? null;
}
