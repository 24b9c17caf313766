/**
 * Background processing of library documents, one at a time (OCR and embedding are CPU work): the text is
 * extracted (libraries/extract.ts), summarised (its first sentences), split into chunks of at most the
 * library's `chunk_size` characters and embedded with the platform's embedding engine; pages, summary, token
 * counts and chunks are stored and the document moves `todo` → `in_progress` → `done` (or `error`, with the
 * reason kept for `text_content`). The queue lives in the database: documents still `todo`/`in_progress`
 * when the platform stopped are picked up again when it starts. Each document is claimed with a lease
 * (store/leases.ts), so processes sharing a PostgreSQL database process it once, and one whose process died
 * is taken over when its lease runs out.
 */
import type { PlatformContext } from '../http/context.js';
import { countTokens } from '../engines/text/tokenizer.js';
import { ExtractionError, documentType, extractPages } from './extract.js';
import { chunkSizeOf, documentBytes, getDocumentById, markDone, markFailed, markInProgress } from './store.js';
import { claimNext, pollForWork, type JobQueue, type Lease } from '../store/leases.js';

/** Documents waiting for processing (or interrupted in it), in upload order. */
const QUEUE: JobQueue = {
  table: 'library_documents',
  // Expired documents are left out (their expiry is an ISO text like every timestamp of the platform).
  pending: `process_status in ('todo', 'in_progress') and (expires_at is null or expires_at > to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))`,
  order: 'seq',
};

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

/** The embedding model library chunks are embedded with (and searched with): `mistral-embed`, else the first served; null when none is. */
export function libraryEmbedder(ctx: PlatformContext) {
  return ctx.embeddings.resolve('mistral-embed') ?? ctx.embeddings.resolve(ctx.embeddings.models()[0]?.id ?? '') ?? null;
}

/** The platform's document processing queue. */
export class DocumentProcessor {
  private running: Promise<void> | null = null;
  private again = false;
  private polling = false;

  constructor(private readonly ctx: PlatformContext) {}

  /** Processes documents left unfinished by an earlier run of the platform (or another process). */
  async resume(): Promise<void> {
    this.wake();
  }

  /** Processes a document (already marked `todo`): the queue is in the database, this only wakes the worker. */
  enqueue(_documentId: string): void {
    this.wake();
  }

  private wake(): void {
    if (!this.polling) {
      this.polling = true;
      pollForWork(this.ctx.db, () => this.wake());
    }
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again && !this.ctx.db.closed) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async drain(): Promise<void> {
    // A document still pending after its turn (expired before processing) is not taken again in this pass.
    const done = new Set<string>();
    for (;;) {
      if (this.ctx.db.closed) return;
      let lease: Lease | undefined;
      try {
        lease = await claimNext(this.ctx.db, QUEUE);
      } catch {
        // The database went away (the platform is closing): the documents stay `todo` or `in_progress` and are
        // processed when the platform reopens.
        return;
      }
      if (!lease) return;
      const id = lease.id;
      if (done.has(id)) return void (await lease.release());
      done.add(id);
      try {
        await this.process(id);
      } catch (err) {
        try {
          await markFailed(this.ctx.db, id, `Processing failed: ${err instanceof Error ? err.message : String(err)}`);
        } catch {
          return;
        }
      } finally {
        await lease.release();
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
    const embedder = libraryEmbedder(this.ctx);
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
