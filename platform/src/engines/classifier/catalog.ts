import { ModelRegistry } from '../model-registry.js';
import type { ClassifierEngine } from './types.js';

/** The moderation and classifier models the platform serves, found by id or alias (never resolvable as chat, TTS, STT or OCR models). */
export class ClassifierCatalog extends ModelRegistry<ClassifierEngine> {}
