/**
 * Durable files of the local platform, per workspace: metadata in `files`, bytes in `file_chunks`
 * (1 MiB bytea rows, so a large file is never one huge parameter or row and downloads stream chunk by chunk).
 * Works the same with an in-memory database (tests) and a durable one (`dataDir`).
 *
 * Visibility: `workspace` files are seen by every member of the uploader's workspace, `user` files only by
 * the uploader. A file of another workspace (or another user's private file) is "not found", never "forbidden".
 * Files uploaded with `expiry` (hours) disappear when it passes (hidden at once, purged on the next upload).
 *
 * Other areas read stored files through {@link readFileBytes} (OCR `{type:"file", file_id}`, dataset imports).
 * Uploads stream in through files/upload.ts: a file is `pending`, and seen by no one, until it is finished.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { chunksOf, readChunks, writeChunks, type ChunkTable } from '../store/chunked-bytes.js';

export type FileVisibility = 'workspace' | 'user';

/** Who is asking: files are scoped to a workspace, `user` files to their uploader too. */
export interface FileOwner { workspaceId: string; userId: string }

/** The wire shape of a file (`GET /v1/files/{id}` adds `deleted:false`). */
export interface FileRecord {
  id: string;
  object: 'file';
  bytes: number;
  /** Unix seconds. */
  created_at: number;
  filename: string;
  purpose: string;
  sample_type: string;
  num_lines: number | null;
  mimetype: string | null;
  source: 'upload';
  /** MD5 of the content, 32 hex digits (as the real service's upload answers). */
  signature: string;
  /** Unix seconds after which the file is gone, or null (kept until deleted). */
  expires_at: number | null;
  visibility: FileVisibility;
}

/** The fields of a new file (its bytes aside). */
export interface NewFileFields {
  filename: string;
  purpose: string;
  sampleType: string;
  mimetype: string | null;
  numLines: number | null;
  visibility: FileVisibility;
  /** Hours until the file expires, or null. */
  expiryHours: number | null;
}

export interface NewFile extends NewFileFields {
  bytes: Uint8Array;
}

/** Filters of `GET /v1/files`; each array matches any of its values. */
export interface FileQuery {
  page: number;
  pageSize: number;
  purpose?: string | null;
  sampleTypes?: string[];
  sources?: string[];
  mimetypes?: string[];
  /** Case-insensitive substring of the filename. */
  search?: string | null;
}

interface FileRow {
  id: string;
  pending?: boolean;
  filename: string;
  purpose: string;
  sample_type: string;
  source: string;
  mimetype: string | null;
  bytes: number | string;
  num_lines: number | null;
  signature: string;
  created_at: number | string;
  expires_at: number | string | null;
  visibility: string;
}

export const FILE_CHUNKS: ChunkTable = { table: 'file_chunks', key: 'file_id' };

const nowSeconds = () => Math.floor(Date.now() / 1000);

function toRecord(r: FileRow): FileRecord {
  return {
    id: r.id,
    object: 'file',
    bytes: Number(r.bytes),
    created_at: Number(r.created_at),
    filename: r.filename,
    purpose: r.purpose,
    sample_type: r.sample_type,
    num_lines: r.num_lines,
    mimetype: r.mimetype,
    source: 'upload',
    signature: r.signature,
    expires_at: r.expires_at === null ? null : Number(r.expires_at),
    visibility: r.visibility === 'user' ? 'user' : 'workspace',
  };
}

/** `where` clause (from $1) selecting the files `owner` may see that have not expired. */
function visibleTo(owner: FileOwner, params: unknown[]): string {
  params.push(owner.workspaceId, owner.userId, nowSeconds());
  const [w, u, now] = [params.length - 2, params.length - 1, params.length];
  return `workspace_id = $${w} and (visibility = 'workspace' or user_id = $${u}) and (expires_at is null or expires_at > $${now}) and not pending`;
}

/** Pending uploads older than this were cut by a stop (an upload in progress is never this old): purged. */
const PENDING_PURGE_SECONDS = 24 * 3600;

/** Purges expired files and abandoned pending uploads (inside the caller's transaction). */
async function purge(tx: Pick<Db, 'query'>, now: number): Promise<void> {
  await tx.query('delete from files where (expires_at is not null and expires_at <= $1) or (pending and created_at < $2)', [now, now - PENDING_PURGE_SECONDS]);
}

/** Stores a new file and its bytes in one transaction (files made by the platform: batch output); also purges. */
export async function createFile(db: Db, owner: FileOwner, file: NewFile): Promise<FileRecord> {
  const id = randomUUID();
  const created = nowSeconds();
  await db.transaction(async (tx) => {
    await purge(tx, created);
    await tx.query(
      `insert into files (id, workspace_id, user_id, visibility, filename, purpose, sample_type, source, mimetype, bytes, num_lines, signature, created_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, 'upload', $8, $9, $10, $11, $12, $13)`,
      [id, owner.workspaceId, owner.userId, file.visibility, file.filename, file.purpose, file.sampleType, file.mimetype, file.bytes.byteLength, file.numLines, createHash('md5').update(file.bytes).digest('hex'), created, expiresAt(created, file.expiryHours)],
    );
    await writeChunks(tx, FILE_CHUNKS, id, file.bytes);
  });
  return (await getFile(db, owner, id))!;
}

const expiresAt = (created: number, hours: number | null) => hours === null ? null : created + Math.round(hours * 3600);

/**
 * Makes a pending upload (files/upload.ts: its chunks are stored) a visible file with `fields`, in one
 * committed update; also purges. Its owner is the one it was stored for.
 */
export async function finishFile(db: Db, id: string, fields: NewFileFields & { bytes: number; signature: string; created: number }): Promise<FileRecord> {
  const { rows } = await db.transaction(async (tx) => {
    await purge(tx, nowSeconds());
    return tx.query<FileRow>(
      `update files set pending = false, visibility = $2, filename = $3, purpose = $4, sample_type = $5, mimetype = $6, bytes = $7, num_lines = $8, signature = $9, expires_at = $10
       where id = $1 and pending returning *`,
      [id, fields.visibility, fields.filename, fields.purpose, fields.sampleType, fields.mimetype, fields.bytes, fields.numLines, fields.signature, expiresAt(fields.created, fields.expiryHours)],
    );
  });
  if (!rows[0]) throw new Error(`upload ${id} is no longer pending`);
  return toRecord(rows[0]);
}

/** The file if `owner` may see it, else undefined. */
export async function getFile(db: Db, owner: FileOwner, id: string): Promise<FileRecord | undefined> {
  const params: unknown[] = [id];
  const { rows } = await db.query<FileRow>(`select * from files where id = $1 and ${visibleTo(owner, params)}`, params);
  return rows[0] && toRecord(rows[0]);
}

/** A page of the files `owner` may see, newest first, and how many match in all. */
export async function listFiles(db: Db, owner: FileOwner, q: FileQuery): Promise<{ data: FileRecord[]; total: number }> {
  const params: unknown[] = [];
  const where = [visibleTo(owner, params)];
  const anyOf = (column: string, values?: string[]) => {
    if (!values?.length) return;
    params.push(values);
    where.push(`${column} = any($${params.length})`);
  };
  if (q.purpose) { params.push(q.purpose); where.push(`purpose = $${params.length}`); }
  anyOf('sample_type', q.sampleTypes);
  anyOf('source', q.sources);
  anyOf('mimetype', q.mimetypes);
  if (q.search) { params.push(`%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`); where.push(`filename ilike $${params.length}`); }
  const clause = where.join(' and ');
  const total = await db.query<{ n: number | string }>(`select count(*) as n from files where ${clause}`, params);
  const { rows } = await db.query<FileRow>(
    `select * from files where ${clause} order by seq desc limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, q.pageSize, q.page * q.pageSize],
  );
  return { data: rows.map(toRecord), total: Number(total.rows[0].n) };
}

/** Deletes the file (and its bytes) if `owner` may see it; false when there is none. */
export async function deleteFile(db: Db, owner: FileOwner, id: string): Promise<boolean> {
  const params: unknown[] = [id];
  const { affectedRows } = await db.query(`delete from files where id = $1 and ${visibleTo(owner, params)}`, params);
  return (affectedRows ?? 0) > 0;
}

/** The file's bytes chunk by chunk, read one chunk at a time (a download never holds the whole file). */
export function fileChunks(db: Db, id: string): AsyncGenerator<Uint8Array> {
  return chunksOf(db, FILE_CHUNKS, id);
}

/** A file no longer scoped to a caller: for signed URLs, which carry their own proof. */
export async function getFileById(db: Db, id: string): Promise<FileRecord | undefined> {
  const { rows } = await db.query<FileRow>('select * from files where id = $1 and (expires_at is null or expires_at > $2) and not pending', [id, nowSeconds()]);
  return rows[0] && toRecord(rows[0]);
}

/**
 * The whole content of a file of `workspaceId` (workspace-visible files, or the user's own when `userId` is
 * given), or undefined when there is no such file. For other areas: OCR `document: {type:"file", file_id}`,
 * dataset import from a file.
 */
export async function readFileBytes(db: Db, workspaceId: string, fileId: string, userId = ''): Promise<{ file: FileRecord; bytes: Uint8Array } | undefined> {
  const file = await getFile(db, { workspaceId, userId }, fileId);
  if (!file) return undefined;
  return { file, bytes: await readChunks(db, FILE_CHUNKS, fileId) };
}

const secrets = new WeakMap<Db, Promise<Uint8Array>>();

/**
 * The platform's secret for signing download URLs: made once, kept in the database (URLs survive a restart),
 * read once per open database (it never changes).
 */
export function urlSecret(db: Db): Promise<Uint8Array> {
  let secret = secrets.get(db);
  if (!secret) {
    secret = loadUrlSecret(db);
    secrets.set(db, secret);
    secret.catch(() => secrets.delete(db));
  }
  return secret;
}

async function loadUrlSecret(db: Db): Promise<Uint8Array> {
  const fresh = crypto.getRandomValues(new Uint8Array(32));
  await db.query('insert into file_url_secret (id, secret) values (1, $1) on conflict (id) do nothing', [fresh]);
  const { rows } = await db.query<{ secret: Uint8Array }>('select secret from file_url_secret where id = 1');
  return rows[0].secret;
}
