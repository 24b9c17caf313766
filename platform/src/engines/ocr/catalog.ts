import { ModelRegistry } from '../model-registry.js';
import type { OcrEngine } from './types.js';

/** The OCR models the platform serves, found by id or alias (never resolvable as chat, TTS or STT models). */
export class OcrCatalog extends ModelRegistry<OcrEngine> {}
