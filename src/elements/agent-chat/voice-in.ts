/**
 * What `<agent-chat>` loads (dynamic import) on first use of voice input: the turn logic and the
 * microphone controller, so the chat's own bundle carries neither.
 */
export { VoiceComposer } from './voice-composer.js';
export { createVoiceInput } from '../../audio/capture/index.js';
