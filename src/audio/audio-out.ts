/**
 * What the elements load (dynamic import) for speech out, through this one module: `<speech-player>`
 * its SpeechSession on the first play, `<agent-chat>` its ReplySpeaker on the first Read aloud. Being the
 * only module loaded so, it is a chunk of its own (audio-out, see vite.config.ts) whose exports are its
 * own: no namespace objects for the bundler's runtime to build.
 */
export { SpeechSession } from './speech-session.js';
export { ReplySpeaker } from './reply-speaker.js';
