/**
 * Large byte contents (uploaded files, library documents) stored as 1 MiB bytea rows `(owner key, position,
 * data)`, so a large file is never one huge parameter or row. Chunks travel as base64 text converted by
 * Postgres (encode/decode): about 10× faster in PGlite than Uint8Array parameters and bytea results, which it
 * converts byte by byte in JavaScript.
 */
import type { Db } from './db.js';

/** Bytes per stored chunk. */
export const CHUNK_BYTES = 1024 * 1024;

/** The tables holding chunks, with the column naming their owner. */
export type ChunkTable = { table: 'file_chunks'; key: 'file_id' } | { table: 'library_document_bytes'; key: 'document_id' };

type Queryable = Pick<Db, 'query'>;

/** Writes `bytes` as the chunks of `id` (inside the caller's transaction). */
export async function writeChunks(tx: Queryable, where: ChunkTable, id: string, bytes: Uint8Array): Promise<void> {
  for (let at = 0, position = 0; at < bytes.byteLength; at += CHUNK_BYTES, position++) {
    const chunk = bytes.subarray(at, at + CHUNK_BYTES);
    await tx.query(`insert into ${where.table} (${where.key}, position, data) values ($1, $2, decode($3, 'base64'))`,
      [id, position, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64')]);
  }
}

/** The whole content stored as the chunks of `id`, in one query (empty when there are none). */
export async function readChunks(db: Queryable, where: ChunkTable, id: string): Promise<Uint8Array> {
  const { rows } = await db.query<{ data: string }>(`select encode(data, 'base64') as data from ${where.table} where ${where.key} = $1 order by position`, [id]);
  return new Uint8Array(Buffer.concat(rows.map((r) => Buffer.from(r.data, 'base64'))));
}
