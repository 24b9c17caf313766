import { ModelRegistry } from '../model-registry.js';
import { createHashedEmbeddingEngine } from './hashed.js';
import type { EmbeddingEngine } from './types.js';

/** The embedding models the platform serves, found by id or alias (never resolvable as chat models). */
export class EmbeddingCatalog extends ModelRegistry<EmbeddingEngine> {}

/** The default embedding models: `parley-embed` (alias `mistral-embed`). */
export const createEmbeddingCatalog = (): EmbeddingCatalog => new EmbeddingCatalog([createHashedEmbeddingEngine()]);
