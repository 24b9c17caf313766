/**
 * A file upload stored as it streams (POST /v1/files): the file's row is written first as `pending` (seen by
 * no one), each 1 MiB chunk is stored as soon as it is full, the MD5 and the JSONL facts (jsonl-scan.ts)
 * are computed on the way, and once the form's fields are checked one update makes the file visible: that
 * commit is what the 2xx acknowledges. A refused or broken upload deletes its row and chunks; one cut by a
 * crash stays pending and is purged a day later (store.ts, on the next upload). Memory: one chunk and one
 * JSONL line, whatever the file's size.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { CHUNK_BYTES, writeChunk } from '../store/chunked-bytes.js';
import { JsonlScan, type JsonlFacts } from './jsonl-scan.js';
import { FILE_CHUNKS, finishFile, type FileOwner, type FileRecord, type NewFileFields } from './store.js';

/** An upload whose bytes are stored, waiting for its fields: {@link StoredUpload.finish} or {@link StoredUpload.discard}. */
export interface StoredUpload {
  bytes: number;
  facts: JsonlFacts;
  /** Makes the file visible with these fields; resolves with it once committed. */
  finish(fields: NewFileFields): Promise<FileRecord>;
  /** Deletes the pending file and its chunks. */
  discard(): Promise<void>;
}

/** Stores `chunks` as a pending file of `owner`; on an error of `chunks` or the database, the partial file is deleted and the error rethrown. */
export async function storeUpload(db: Db, owner: FileOwner, chunks: AsyncIterable<Uint8Array>): Promise<StoredUpload> {
  const id = randomUUID();
  const created = Math.floor(Date.now() / 1000);
  await db.query(
    `insert into files (id, workspace_id, user_id, visibility, filename, purpose, sample_type, source, mimetype, bytes, num_lines, signature, created_at, expires_at, pending)
     values ($1, $2, $3, 'user', '', '', '', 'upload', null, 0, null, '', $4, null, true)`,
    [id, owner.workspaceId, owner.userId, created],
  );
  const discard = async () => { await db.query('delete from files where id = $1 and pending', [id]); };
  const md5 = createHash('md5');
  const scan = new JsonlScan();
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let filled = 0;
  let position = 0;
  let bytes = 0;
  const flush = async () => {
    if (filled === 0) return;
    await writeChunk(db, FILE_CHUNKS, id, position++, buffer.subarray(0, filled));
    filled = 0;
  };
  try {
    for await (const chunk of chunks) {
      md5.update(chunk);
      scan.push(chunk);
      bytes += chunk.byteLength;
      for (let at = 0; at < chunk.byteLength;) {
        const n = Math.min(CHUNK_BYTES - filled, chunk.byteLength - at);
        buffer.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === CHUNK_BYTES) await flush();
      }
    }
    await flush();
  } catch (err) {
    await discard().catch(() => {});
    throw err;
  }
  const signature = md5.digest('hex');
  const facts = scan.end();
  return {
    bytes,
    facts,
    finish: (fields) => finishFile(db, id, { ...fields, bytes, signature, created }),
    discard,
  };
}
