import { ModelRegistry } from '../model-registry.js';
import type { TranscriptionEngine } from './types.js';

/** The speech-to-text models the platform serves, found by id or alias (never resolvable as chat or TTS models). */
export class TranscriptionCatalog extends ModelRegistry<TranscriptionEngine> {}
