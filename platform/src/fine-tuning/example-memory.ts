/**
 * The adapter a local fine-tuning job trains: an example memory. It is not a weight update of a language model
 * (the local chat model has no weights); it is a nearest-neighbour memory of (prompt → reply) pairs over the
 * local embedding engine's hashed lexical vectors. A prompt close enough to a remembered one
 * (cosine ≥ {@link MATCH_THRESHOLD}) is answered with that example's reply; any other prompt is left to the
 * base model.
 *
 * Training is condensed nearest neighbour: each epoch walks the training examples in file order and
 * remembers an example only when the memory does not already answer its prompt with its reply. The train
 * loss of an epoch is measured, not simulated: the fraction of training prompts the memory does not answer
 * with their reply at the end of the epoch (0 once every prompt is answered; it stays above 0 when the data
 * gives different replies to the same prompt).
 */
import { hashedEmbedding } from '../engines/embeddings/hashed.js';
import type { TrainingExample } from './training-data.js';

/** Smallest cosine similarity between a prompt and a remembered prompt for the remembered reply to be used. */
export const MATCH_THRESHOLD = 0.5;
const DIMENSION = 1024;

/** Nearest-neighbour memory of (prompt → reply) examples. */
export class ExampleMemory {
  private readonly vectors: Float32Array[] = [];

  constructor(readonly examples: TrainingExample[] = []) {
    for (const e of examples) this.vectors.push(hashedEmbedding(e.prompt, DIMENSION));
  }

  /** The reply of the remembered example nearest to `prompt`, when similar enough; ties go to the earlier example. */
  answer(prompt: string): string | undefined {
    if (this.examples.length === 0) return undefined;
    const query = hashedEmbedding(prompt, DIMENSION);
    let best = -1;
    let bestScore = MATCH_THRESHOLD - Number.EPSILON;
    this.vectors.forEach((v, i) => {
      let dot = 0;
      for (let d = 0; d < DIMENSION; d++) dot += v[d] * query[d];
      if (dot > bestScore) {
        bestScore = dot;
        best = i;
      }
    });
    return best < 0 ? undefined : this.examples[best].reply;
  }

  /** Remembers an example (an identical one is kept once). */
  remember(example: TrainingExample): void {
    if (this.examples.some((e) => e.prompt === example.prompt && e.reply === example.reply)) return;
    this.examples.push(example);
    this.vectors.push(hashedEmbedding(example.prompt, DIMENSION));
  }

  /** Fraction of `examples` whose prompt this memory does not answer with their reply (0 for none). */
  loss(examples: readonly TrainingExample[]): number {
    if (examples.length === 0) return 0;
    return examples.filter((e) => this.answer(e.prompt) !== e.reply).length / examples.length;
  }
}

/** Runs one training epoch over `examples` (see the module comment); returns the epoch's measured train loss. */
export async function trainEpoch(memory: ExampleMemory, examples: readonly TrainingExample[]): Promise<number> {
  for (const [i, example] of examples.entries()) {
    if (memory.answer(example.prompt) !== example.reply) memory.remember(example);
    // Let requests in between: a large file must not stall the server.
    if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  return memory.loss(examples);
}
