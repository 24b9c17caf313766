/**
 * `parley-embed`: a local, deterministic text-embedding engine built from hashed lexical features. It is
 * **not** a neural model: it knows no synonyms, only shared words and word pieces. Texts that share words,
 * word pairs or spelling fragments get a higher cosine similarity than texts that share none, which is
 * what retrieval code, caches and tests need offline.
 *
 * Features of a text (lower-cased, accents removed): word unigrams (weight 1), word bigrams (0.5) and
 * character trigrams of each word with `^`/`$` boundaries (0.25 each). Each feature's weight is scaled by
 * the sublinear term frequency `1 + ln(tf)`, hashed (FNV-1a) to one of `dimension` buckets with a hashed
 * sign (the "hashing trick", so collisions cancel out on average), and the vector is L2-normalised.
 */
import { modelCard } from '../model-card.js';
import type { ModelCard } from 'parley-kit/types';
import type { EmbeddingEngine } from './types.js';

/** Model id served by {@link createHashedEmbeddingEngine}. */
export const HASHED_EMBEDDING_MODEL_ID = 'parley-embed';
/** Dimension of `mistral-embed`, and the default here. */
export const HASHED_EMBEDDING_DIMENSION = 1024;
const MAX_DIMENSION = 4096;

const CARD: ModelCard = modelCard({
  id: HASHED_EMBEDDING_MODEL_ID,
  created: 1735689600,
  ownedBy: 'mistralai',
  capabilities: {},
  name: 'Parley local embeddings',
  description:
    'Deterministic local text embeddings from hashed lexical features (word unigrams and bigrams, character trigrams, ' +
    'sublinear term frequency, L2-normalised, 1024 dimensions by default), not a neural model: similar wording gives ' +
    'similar vectors, synonyms do not. It also answers to mistral-embed so code written for the hosted platform runs offline.',
  aliases: ['mistral-embed'],
  maxContextLength: 8192,
});

/** Words of a text: lower-cased letters and digits, accents removed. */
export function words(text: string): string[] {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Weighted features of a text (feature → summed weight before the tf scaling). */
function features(text: string): Map<string, { weight: number; tf: number }> {
  const out = new Map<string, { weight: number; tf: number }>();
  const add = (key: string, weight: number) => {
    const f = out.get(key);
    if (f) f.tf++;
    else out.set(key, { weight, tf: 1 });
  };
  const ws = words(text);
  ws.forEach((w, i) => {
    add(`w:${w}`, 1);
    if (i > 0) add(`b:${ws[i - 1]} ${w}`, 0.5);
    const padded = `^${w}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.25);
  });
  return out;
}

/** FNV-1a over the UTF-16 code units of `text`, as an unsigned 32-bit number. */
function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The embedding of one text in `dimension` components (all zero for a text without words). */
export function hashedEmbedding(text: string, dimension: number): Float32Array {
  const vector = new Float32Array(dimension);
  for (const [key, { weight, tf }] of features(text)) {
    const bucket = fnv1a(key, 0) % dimension;
    const sign = fnv1a(key, 0x9e3779b9) & 1 ? 1 : -1;
    vector[bucket] += sign * weight * (1 + Math.log(tf));
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimension; i++) vector[i] /= norm;
  return vector;
}

/** Create the `parley-embed` engine (pure computation: no worker, nothing to close). */
export function createHashedEmbeddingEngine(): EmbeddingEngine {
  return {
    models: () => [structuredClone(CARD)],
    dimension: () => HASHED_EMBEDDING_DIMENSION,
    maxDimension: MAX_DIMENSION,
    embed: (texts, dimension) => texts.map((t) => hashedEmbedding(t, dimension)),
  };
}
