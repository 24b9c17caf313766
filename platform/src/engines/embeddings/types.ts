/** The embedding engine interface behind `POST /v1/embeddings`. */
import type { ModelEngine } from '../model-registry.js';

/** A text-embedding model: turns texts into unit-length vectors of a requested dimension. */
export interface EmbeddingEngine extends ModelEngine {
  /** Native dimension of a model's vectors (the default when the request names none). */
  dimension(model: string): number;
  /** Largest `output_dimension` the engine can produce. */
  readonly maxDimension: number;
  /** One L2-normalised vector of `dimension` components per text, in order. */
  embed(texts: readonly string[], dimension: number): Float32Array[];
}
