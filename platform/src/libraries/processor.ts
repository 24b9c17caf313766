/**
 * Background processing of library documents, one at a time (OCR and embedding are CPU work): the text is
 * extracted (libraries/extract.ts), summarised (its first sentences), split into chunks of at most the
 * library's `chunk_size` characters and embedded with the platform's embedding engine; pages, summary, token
 * counts and chunks are stored and the document moves `todo` → `in_progress` → `done` (or `error`, with the
 * reason kept for `text_content`). The queue lives in the database: documents still `todo`/`in_progress`
 * when the platform stopped are picked up again when it starts.
 */
import type { PlatformContext } from '../context.js';
import { countTokens } from '../engines/text/tokenizer.js';
import { ExtractionError, documentType, extractPages } from './extract.js';
import { chunkSizeOf, documentBytes, getDocumentById, markDone, markFailed, markInProgress, unfinishedDocuments } from './store.js';

/** Chunk size in characters when the library sets none. */
export const DEFAULT_CHUNK_SIZE = 2048;
/** The summary is the document's first sentences, up to about this many characters. */
const SUMMARY_CHARS = 300;

/** The first sentences of a text (markdown markers removed), about {@link SUMMARY_CHARS} long; null for a text without words. */
export function summarize(text: string): string | null {
  const plain = text.replace(/^\s{0,3}(#{1,6}|[-*+]|\d+\.)\s+/gm, '').replace(/[*_`>|]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (!/[\p{L}\p{N}]/u.test(plain)) return null;
  const sentences = plain.match(/[^.!?]+(?:[.!?]+|$)/g) ?? [plain];
  let out = '';
  for (const s of sentences) {
    if (out && out.length + s.length > SUMMARY_CHARS) break;
    out += s;
  }
  return out.length > SUMMARY_CHARS * 2 ? `${out.slice(0, SUMMARY_CHARS * 2).trimEnd()}…` : out.trim();
}

/** Splits text into chunks of at most `size` characters, at paragraph, then line, then word boundaries. */
export function chunkText(text: string, size: number): string[] {
  const chunks: string[] = [];
  let current = '';
  const push = (piece: string, separator: string) => {
    if (!piece.trim()) return;
    if (current && current.length + separator.length + piece.length <= size) { current += separator + piece; return; }
    if (current) chunks.push(current);
    current = '';
    if (piece.length <= size) { current = piece; return; }
    if (separator === '\n\n') for (const line of piece.split('\n')) push(line, '\n');
    else if (separator === '\n') for (const word of piece.split(' ')) push(word, ' ');
    else for (let at = 0; at < piece.length; at += size) chunks.push(piece.slice(at, at + size));
  };
  for (const paragraph of text.split(/\n\s*\n/)) push(paragraph.trim(), '\n\n');
  if (current) chunks.push(current);
  return chunks;
}

/** The platform's document processing queue. */
export class DocumentProcessor {
  private readonly queue: string[] = [];
  private running: Promise<void> | null = null;

  constructor(private readonly ctx: PlatformContext) {}

  /** Queues documents left unfinished by an earlier run of the platform. */
  async resume(): Promise<void> {
    for (const id of await unfinishedDocuments(this.ctx.db)) this.enqueue(id);
  }

  /** Queues a document (already marked `todo`) for processing. */
  enqueue(documentId: string): void {
    if (!this.queue.includes(documentId)) this.queue.push(documentId);
    this.running ??= this.drain().finally(() => { this.running = null; });
  }

  private async drain(): Promise<void> {
    for (let id = this.queue.shift(); id !== undefined; id = this.queue.shift()) {
      try {
        await this.process(id);
      } catch (err) {
        try {
          await markFailed(this.ctx.db, id, `Processing failed: ${err instanceof Error ? err.message : String(err)}`);
        } catch {
          // The database went away under the job (the platform is closing): the document stays `todo` or
          // `in_progress` in the database and is processed again by resume() when the platform reopens.
          return;
        }
      }
    }
  }

  private async process(id: string): Promise<void> {
    const { db } = this.ctx;
    const doc = await getDocumentById(db, id);
    if (!doc) return;
    await markInProgress(db, id);
    const bytes = await documentBytes(db, id);
    const type = documentType(doc.name, doc.mime_type ?? '', bytes);
    let pages: string[];
    try {
      if (!type) throw new ExtractionError('The document is neither a PDF, an image nor UTF-8 text');
      pages = await extractPages(type, bytes, this.ctx.ocr);
    } catch (err) {
      if (!(err instanceof ExtractionError)) throw err;
      await markFailed(db, id, err.message);
      return;
    }
    const text = pages.join('\n\n');
    const summary = summarize(text);
    const chunks = chunkText(text, (await chunkSizeOf(db, id)) ?? DEFAULT_CHUNK_SIZE);
    const embedder = this.ctx.embeddings.resolve('mistral-embed') ?? this.ctx.embeddings.resolve(this.ctx.embeddings.models()[0]?.id ?? '');
    if (!embedder) { await markFailed(db, id, 'No embedding model is configured on this platform'); return; }
    const vectors = embedder.engine.embed(chunks, embedder.engine.dimension(embedder.card.id));
    await markDone(db, id, {
      pages,
      summary,
      tokensMain: countTokens(text),
      tokensSummary: summary ? countTokens(summary) : 0,
      chunks: chunks.map((c, i) => ({ text: c, embedding: vectors[i] })),
    });
  }
}
