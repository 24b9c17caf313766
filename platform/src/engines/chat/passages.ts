/**
 * Passages of read attachments and their ranking against a question, for `parley-local`'s answers about
 * attachments (reading.ts writes the reply).
 *
 * - **Passages.** A page's text (markdown as the OCR engine writes it, one line of the page per line) is cut at
 *   blank lines into blocks; in a block, a line that does not end a sentence and is followed by a line starting
 *   in lower case is joined to it (a wrapped line of prose); the joined lines are cut into sentences. A line of a
 *   receipt or a table row ("TOTAL 42.50", `| Total | 42.50 |`) is thus a passage of its own, and so is each
 *   sentence of a paragraph. Markdown markers (headings, list bullets, table pipes, emphasis) are removed.
 * - **Query.** The question without question words, stopwords and the words that name the attachment itself
 *   ("What does this image say about returns?" → "returns"; the words of its file name too); the whole question
 *   when nothing is left.
 * - **Ranking.** Cosine similarity of the query's and each passage's embedding (the platform's embedding engine,
 *   `parley-embed` by default), ties broken by document, page and position, so the order is deterministic. A
 *   passage that shares no word with the query (the same word, or one beginning the other, or five letters in
 *   common at the start: return/returns, accepted/acceptance) scores 0: hashed embeddings of a one-word query
 *   can collide with an unrelated passage.
 */
import { words } from '../embeddings/hashed.js';

/** A passage of a read attachment: which document (index in the turn's documents), which page (0-based), where on it. */
export interface Passage {
  document: number;
  page: number;
  /** Position of the passage in its page (0-based), for stable ordering. */
  position: number;
  text: string;
}

/** A passage with how many of the query's words it has (`matched`) and its similarity to the query (cosine, 0…1). */
export interface RankedPassage extends Passage { matched: number; score: number }

/** Turns texts into unit vectors (the embedding engine's `embed` at a fixed dimension). */
export type Embed = (texts: readonly string[]) => Float32Array[];

/** Longest passage kept whole; longer sentences are cut at a word boundary with "…". */
export const MAX_PASSAGE_CHARS = 400;

const SENTENCE_END = /[.!?…:;]["'”’)\]]?$/u;

/** A markdown line of the OCR output as plain text (no heading marks, bullets, table pipes or emphasis); '' for a table's separator row. */
export function plainLine(line: string): string {
  let t = line.trim();
  if (/^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/.test(t)) return '';
  if (t.startsWith('|') && t.endsWith('|') && t.length > 1) {
    t = t.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()).filter(Boolean).join('  ');
  }
  t = t
    .replace(/^#{1,6}\s+/, '')
    .replace(/^(?:[-*+]|\d{1,3}[.)])\s+/, (m) => (/^\d/.test(m) ? m : ''))
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1');
  return t.replace(/\s+/g, ' ').trim();
}

/** Sentences of a piece of prose: cut after `.`, `!` or `?` (and closing quotes) before a capital, a digit or a quote. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?…]["'”’)\]]?)\s+(?=[\p{Lu}\p{N}"“'‘(])/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

function cut(text: string): string {
  const chars = Array.from(text);
  if (chars.length <= MAX_PASSAGE_CHARS) return text;
  const head = chars.slice(0, MAX_PASSAGE_CHARS - 1).join('');
  const space = head.lastIndexOf(' ');
  return `${(space > MAX_PASSAGE_CHARS / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** The passages of one page's text, in reading order. */
export function pagePassages(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').map(plainLine).filter(Boolean);
    const joined: string[] = [];
    for (const line of lines) {
      const prev = joined.length ? joined[joined.length - 1] : null;
      if (prev !== null && !SENTENCE_END.test(prev) && /^\p{Ll}/u.test(line)) joined[joined.length - 1] = `${prev} ${line}`;
      else joined.push(line);
    }
    for (const line of joined) for (const s of sentences(line)) out.push(cut(s));
  }
  return out;
}

/** Every passage of the documents, in document, page and reading order. */
export function documentPassages(documents: ReadonlyArray<{ pages: ReadonlyArray<{ index: number; text: string }> }>): Passage[] {
  const out: Passage[] = [];
  documents.forEach((doc, document) => {
    for (const page of doc.pages) {
      pagePassages(page.text).forEach((text, position) => out.push({ document, page: page.index, position, text }));
    }
  });
  return out;
}

/** Words that ask, or name the attachment being asked about, rather than say what is sought. */
const QUESTION_WORDS = new Set([
  'a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'about', 'as', 'is', 'are', 'was',
  'were', 'be', 'it', 'its', 'this', 'that', 'these', 'those', 'there', 'here', 'you', 'your', 'we', 'our', 'i', 'me', 'my',
  'can', 'could', 'would', 'should', 'will', 'do', 'does', 'did', 'have', 'has', 'had', 'what', 'which', 'who', 'when', 'where',
  'why', 'how', 'whats', 'what\'s', 'please', 'tell', 'say', 'says', 'said', 'show', 'shows', 'read', 'find', 'give', 'quote',
  'any', 'some', 'written', 'mentioned', 'mention', 'mentions', 'according', 'attached', 'attachment', 'attachments', 'image',
  'images', 'picture', 'photo', 'screenshot', 'scan', 'document', 'documents', 'pdf', 'file', 'files', 'page', 'pages',
  'receipt', 'invoice', 'letter', 'sheet', 'text', 'written', 'there', 'here', 'us', 'so', 'just', 'up', 'out', 'much', 'many',
]);

/**
 * The words of the question that say what is sought, without the words of `names` (the attachments' file names);
 * the whole question when all of it is question words.
 */
export function queryOf(question: string, names: readonly string[] = []): string {
  const all = question.toLowerCase().match(/[\p{L}\p{N}'’]+/gu) ?? [];
  const named = new Set(names.flatMap((n) => words(n)));
  const kept = all.filter((w) => !QUESTION_WORDS.has(w.replace(/['’]s$/u, '').replace(/’/gu, '\'')) && !named.has(w));
  return (kept.length ? kept : all).join(' ');
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

/** Whether two words are forms of one another (see the module documentation). */
function related(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a))) return true;
  let common = 0;
  while (common < a.length && a[common] === b[common]) common++;
  return common >= 5;
}

/** How many distinct words of the query the passage has (or forms of them). */
export function matchedWords(queryWords: readonly string[], passage: string): number {
  const own = words(passage);
  return [...new Set(queryWords)].filter((q) => own.some((w) => related(q, w))).length;
}

/**
 * The passages ranked for `query`, best first: by how many of its words they have, then by similarity (ties:
 * document, page, position). A passage with none of its words scores 0.
 */
export function rankPassages(passages: readonly Passage[], query: string, embed: Embed): RankedPassage[] {
  if (!passages.length) return [];
  const [q, ...vectors] = embed([query, ...passages.map((p) => p.text)]);
  const queryWords = words(query);
  return passages
    .map((p, i) => {
      const matched = matchedWords(queryWords, p.text);
      return { ...p, matched, score: matched ? Math.max(0, Math.round(cosine(q, vectors[i]) * 1e6) / 1e6) : 0 };
    })
    .sort((a, b) => b.matched - a.matched || b.score - a.score || a.document - b.document || a.page - b.page || a.position - b.position);
}
