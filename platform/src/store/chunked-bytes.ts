/**
 * Large byte contents (uploaded files, library documents) stored as 1 MiB bytea rows `(owner key, position,
 * data)`, so a large file is never one huge parameter or row. Chunks travel as base64 text converted by
 * Postgres (encode/decode): about 10× faster in PGlite than Uint8Array parameters and bytea results, which it
 * converts byte by byte in JavaScript. Writers and readers go one chunk at a time (uploads stream in, downloads
 * stream out: files/upload.ts, files/routes.ts).
 */
import type { Db } from './db.js';

/** Bytes per stored chunk. */
export const CHUNK_BYTES = 1024 * 1024;

/** The tables holding chunks, with the column naming their owner. */
export type ChunkTable = { table: 'file_chunks'; key: 'file_id' } | { table: 'library_document_bytes'; key: 'document_id' };

type Queryable = Pick<Db, 'query'>;

/** Writes one chunk (at most {@link CHUNK_BYTES}) of `id` at `position`. */
export async function writeChunk(tx: Queryable, where: ChunkTable, id: string, position: number, chunk: Uint8Array): Promise<void> {
  await tx.query(`insert into ${where.table} (${where.key}, position, data) values ($1, $2, decode($3, 'base64'))`,
    [id, position, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64')]);
}

/** Writes `bytes` as the chunks of `id` (inside the caller's transaction). */
export async function writeChunks(tx: Queryable, where: ChunkTable, id: string, bytes: Uint8Array): Promise<void> {
  for (let at = 0, position = 0; at < bytes.byteLength; at += CHUNK_BYTES, position++) {
    await writeChunk(tx, where, id, position, bytes.subarray(at, at + CHUNK_BYTES));
  }
}

/** The chunks of `id` in order, one query per chunk: a reader holds one chunk at a time. */
export async function* chunksOf(db: Queryable, where: ChunkTable, id: string): AsyncGenerator<Uint8Array> {
  for (let position = 0; ; position++) {
    const { rows } = await db.query<{ data: string }>(`select encode(data, 'base64') as data from ${where.table} where ${where.key} = $1 and position = $2`, [id, position]);
    if (!rows[0]) return;
    yield Buffer.from(rows[0].data, 'base64');
  }
}

/**
 * The whole content stored as the chunks of `id` (empty when there are none), read one chunk per query:
 * the database never answers with every chunk's text at once.
 */
export async function readChunks(db: Queryable, where: ChunkTable, id: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunksOf(db, where, id)) {
    parts.push(chunk);
    total += chunk.byteLength;
  }
  return Buffer.concat(parts, total);
}
