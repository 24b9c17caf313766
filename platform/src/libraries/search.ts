/**
 * Search over the processed documents of libraries (what the `document_library` tool of a conversation runs).
 *
 * A hybrid ranking, in two stages. A text's score is the mean of two parts in 0–1: the cosine of its embedding
 * with the embedding of the query's content words (the platform's embedding engine, the one documents are
 * embedded with, processor.ts), and
 * the share of the query's content words it holds, each word weighted by its IDF over the libraries' chunks
 * (so "shipping" counts and "how", "the" or "does" do not; words are compared lower-cased, accents and plural
 * or verb endings removed).
 * 1. every stored chunk of the libraries' processed, live documents is scored, with its stored embedding;
 * 2. the best {@link CANDIDATE_CHUNKS} chunks are cut into passages (paragraphs, markdown markers removed) that
 *    are embedded and scored again, so an answer quotes a paragraph rather than a whole 2,000-character chunk.
 * A passage counts when its score is at least {@link MIN_SCORE} and within {@link RELATIVE_CUTOFF} of the best
 * one; at most `limit` passages are returned, best first (ties: library order, document, position).
 * Deterministic: the same libraries and query give the same passages.
 */
import type { PlatformContext } from '../http/context.js';
import { words } from '../engines/embeddings/hashed.js';
import { isoNow } from '../http/ids.js';
import { libraryEmbedder } from './processor.js';

/** One passage found, with the document it comes from. */
export interface LibraryPassage {
  libraryId: string;
  documentId: string;
  documentName: string;
  /** The document's attributes (a `title` and `url` there name the source in references). */
  attributes: Record<string, unknown> | null;
  text: string;
  /** Cosine similarity of the passage with the query (0–1 for texts that share words). */
  score: number;
}

/** Chunks re-ranked passage by passage. */
const CANDIDATE_CHUNKS = 6;
/** Passages scoring below this share too little with the query to be an answer. */
export const MIN_SCORE = 0.12;
/** Passages scoring below this fraction of the best one are left out. */
const RELATIVE_CUTOFF = 0.75;
/** A passage needs this many words (a lone heading is not an answer). */
const MIN_PASSAGE_WORDS = 4;

interface ChunkRow {
  library_id: string; document_id: string; name: string; attributes: Record<string, unknown> | null; position: number; text: string;
  embedding: Uint8Array;
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function vectorOf(bytes: Uint8Array): Float32Array {
  // Copy: the row's bytes need not be 4-byte aligned.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(copy.byteLength / 4));
}

/** Function words that say nothing about what a passage is about. */
const FUNCTION_WORDS = new Set(
  ('a an the and or but of to in on at by for with from into about as is are was were be been being it its this that these those there ' +
   'here you your we our they their them he she his her i me my can could would should will shall may might must do does did done ' +
   'have has had what which who whom whose when where why how some any all each every such then than also only not no yes please ' +
   'if so up out get got much many long').split(' '),
);

/** A word's stem: lower-cased, without its plural, `-ing` or `-ed` ending (shipping, shipped, ships → ship). */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  const undouble = (w: string) => (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w);
  if (word.length > 5 && word.endsWith('ing')) return undouble(word.slice(0, -3));
  if (word.length > 4 && word.endsWith('ed')) return undouble(word.slice(0, -2));
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The content words of a text, as stems. */
export function termsOf(text: string): Set<string> {
  return new Set(words(text).filter((w) => !FUNCTION_WORDS.has(w)).map(stem));
}

/** The IDF-weighted share (0–1) of the query's terms that `terms` holds. */
function lexical(query: ReadonlySet<string>, terms: ReadonlySet<string>, idf: (t: string) => number): number {
  let total = 0;
  let held = 0;
  for (const t of query) {
    total += idf(t);
    if (terms.has(t)) held += idf(t);
  }
  return total > 0 ? held / total : 0;
}

/** The passages of a chunk: its paragraphs with markdown heading, list and emphasis markers removed. */
export function passagesOf(chunk: string): string[] {
  return chunk
    .split(/\n\s*\n/)
    .map((p) => p.replace(/^\s{0,3}(#{1,6}|[-*+]|\d+\.|>)\s+/gm, '').replace(/[*_`]+/g, '').replace(/\s+/g, ' ').trim())
    .filter((p) => (p.match(/[\p{L}\p{N}]+/gu) ?? []).length >= MIN_PASSAGE_WORDS);
}

/** The best passages of the libraries for `query` (ids the caller may read: access is checked before). */
export async function searchLibraries(ctx: PlatformContext, libraryIds: readonly string[], query: string, limit = 3): Promise<LibraryPassage[]> {
  if (!libraryIds.length || !/[\p{L}\p{N}]/u.test(query)) return [];
  const embedder = libraryEmbedder(ctx);
  if (!embedder) return [];
  const dimension = embedder.engine.dimension(embedder.card.id);
  // The query is embedded without its function words: "to" and "a" say nothing about which passage answers it.
  const content = words(query).filter((w) => !FUNCTION_WORDS.has(w)).join(' ');
  const [q] = embedder.engine.embed([content || query], dimension);
  const { rows } = await ctx.db.query<ChunkRow>(
    `select d.library_id, d.id as document_id, d.name, d.attributes, c.position, c.text, c.embedding
       from library_document_chunks c join library_documents d on d.id = c.document_id
      where d.library_id = any($1) and d.process_status = 'done' and (d.expires_at is null or d.expires_at > $2)
      order by d.seq, c.position`,
    [[...libraryIds], isoNow()],
  );
  const order = (r: ChunkRow) => libraryIds.indexOf(r.library_id);
  const queryTerms = termsOf(query);
  const chunkTerms = rows.map((r) => termsOf(r.text));
  const df = new Map<string, number>();
  for (const terms of chunkTerms) for (const t of terms) if (queryTerms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + (rows.length + 1) / (1 + (df.get(t) ?? 0)));
  const score = (vector: Float32Array, terms: ReadonlySet<string>) => (Math.max(0, dot(q, vector)) + lexical(queryTerms, terms, idf)) / 2;
  const candidates = rows
    .map((row, index) => ({ row, index, score: score(vectorOf(row.embedding), chunkTerms[index]) }))
    .sort((a, b) => b.score - a.score || order(a.row) - order(b.row) || a.index - b.index)
    .slice(0, CANDIDATE_CHUNKS);
  const passages: Array<LibraryPassage & { at: number }> = [];
  for (const { row, index } of candidates) {
    const texts = passagesOf(row.text);
    const vectors = embedder.engine.embed(texts, dimension);
    texts.forEach((text, i) => passages.push({
      libraryId: row.library_id, documentId: row.document_id, documentName: row.name, attributes: row.attributes,
      text, score: score(vectors[i], termsOf(text)), at: order(row) * 1e9 + index * 1e4 + i,
    }));
  }
  passages.sort((a, b) => b.score - a.score || a.at - b.at);
  const best = passages[0]?.score ?? 0;
  const seen = new Set<string>();
  return passages
    .filter((p) => p.score >= MIN_SCORE && p.score >= best * RELATIVE_CUTOFF)
    .filter((p) => !seen.has(p.text) && Boolean(seen.add(p.text)))
    .slice(0, limit)
    .map(({ at: _at, ...p }) => p);
}
