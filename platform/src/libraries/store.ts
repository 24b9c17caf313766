/**
 * Durable document libraries: libraries, their access entries, documents (metadata, bytes in 1 MiB chunks,
 * extracted pages) and the embedded text chunks of processed documents.
 *
 * Access: the creator of a library is its `Owner`; other callers get the highest role of the entries that
 * name them (`User` = their user id, `Workspace` = a workspace they belong to, `Org` = their organization).
 * A `Workspace`-owned library starts with an `Editor` entry for the creator's workspace; a `User`-owned one
 * with none. Callers without a role do not see the library at all (the routes answer 404).
 * Counters (`nb_documents`, `total_size`) are computed from the documents. Documents whose `expires_at` has
 * passed are hidden at once and purged on the next upload to their library.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { isoNow } from '../http/ids.js';
import { readChunks, writeChunks } from '../store/chunked-bytes.js';


export type Role = 'Owner' | 'Editor' | 'Viewer';
export type EntityType = 'User' | 'Workspace' | 'Org';
const RANK: Record<Role, number> = { Viewer: 1, Editor: 2, Owner: 3 };

/** Whether `role` is at least `needed`. */
export const atLeast = (role: Role, needed: Role) => RANK[role] >= RANK[needed];

/** Who asks, with every entity an access entry may name. */
export interface Principal {
  userId: string;
  organizationId: string;
  workspaceIds: string[];
}

/** The wire shape of a library (LibraryOut). */
export interface LibraryRecord {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  owner_id: string;
  owner_type: 'User' | 'Workspace';
  total_size: number;
  nb_documents: number;
  chunk_size: number | null;
  emoji: null;
  description: string | null;
  generated_description: null;
  explicit_user_members_count: number;
  explicit_workspace_members_count: number;
  org_sharing_role: string | null;
  generated_name: null;
}

/** A library and the caller's role in it. */
export interface Accessible { library: LibraryRecord; role: Role }

/** The wire shape of an access entry (SharingOut). */
export interface ShareRecord {
  library_id: string;
  user_id: string | null;
  org_id: string;
  role: Role;
  share_with_type: EntityType;
  share_with_uuid: string;
}

/** Processing states (ProcessStatus) used here. */
export type ProcessStatus = 'todo' | 'in_progress' | 'done' | 'error';
const LEGACY_STATUS: Record<ProcessStatus, string> = { todo: 'Running', in_progress: 'Running', done: 'Completed', error: 'Failed' };

/** The wire shape of a document (DocumentOut). */
export interface DocumentRecord {
  id: string;
  library_id: string;
  hash: string;
  mime_type: string | null;
  extension: string | null;
  size: number;
  name: string;
  summary: string | null;
  created_at: string;
  last_processed_at: string | null;
  number_of_pages: number | null;
  process_status: ProcessStatus;
  uploaded_by_id: string;
  uploaded_by_type: 'User';
  tokens_processing_main_content: number | null;
  tokens_processing_summary: number | null;
  url: null;
  attributes: Record<string, unknown> | null;
  expires_at: string | null;
  processing_status: string;
  tokens_processing_total: number;
}

interface LibraryRow {
  id: string; organization_id: string; owner_type: string; owner_id: string; creator_id: string; name: string; description: string | null;
  chunk_size: number | null; created_at: string; updated_at: string; nb_documents: number | string; total_size: number | string;
  user_shares: number | string; workspace_shares: number | string; org_role: string | null; role: string;
}

interface DocumentRow {
  id: string; library_id: string; name: string; hash: string; mime_type: string | null; extension: string | null; size: number | string;
  uploaded_by_id: string; attributes: Record<string, unknown> | null; expires_at: string | null; created_at: string; process_status: string;
  last_processed_at: string | null; number_of_pages: number | null; summary: string | null; tokens_main: number | null; tokens_summary: number | null;
}

/** `where` fragment: the document has not expired (`$n` is now). */
const live = (n: number, alias = 'd') => `(${alias}.expires_at is null or ${alias}.expires_at > $${n})`;

/**
 * Select of libraries with their counters and the principal's role (`$1` user, `$2` organization,
 * `$3` workspace ids, `$4` now); rows without a role are filtered out by the callers' `where role is not null`.
 */
const LIBRARY_SELECT = `
  select l.*,
    (select count(*) from library_documents d where d.library_id = l.id and ${live(4)}) as nb_documents,
    (select coalesce(sum(d.size), 0) from library_documents d where d.library_id = l.id and ${live(4)}) as total_size,
    (select count(*) from library_shares s where s.library_id = l.id and s.share_with_type = 'User' and s.role <> 'Owner') as user_shares,
    (select count(*) from library_shares s where s.library_id = l.id and s.share_with_type = 'Workspace') as workspace_shares,
    (select s.role from library_shares s where s.library_id = l.id and s.share_with_type = 'Org' limit 1) as org_role,
    case when l.creator_id = $1 then 'Owner' else (
      select s.role from library_shares s where s.library_id = l.id and (
        (s.share_with_type = 'User' and s.share_with_uuid = $1) or
        (s.share_with_type = 'Org' and s.share_with_uuid = $2) or
        (s.share_with_type = 'Workspace' and s.share_with_uuid = any($3)))
      order by case s.role when 'Owner' then 3 when 'Editor' then 2 else 1 end desc limit 1)
    end as role
  from libraries l where l.organization_id = $2`;

const principalParams = (p: Principal) => [p.userId, p.organizationId, p.workspaceIds, isoNow()];

function toLibrary(r: LibraryRow): LibraryRecord {
  return {
    id: r.id,
    name: r.name,
    created_at: r.created_at,
    updated_at: r.updated_at,
    owner_id: r.owner_id,
    owner_type: r.owner_type === 'User' ? 'User' : 'Workspace',
    total_size: Number(r.total_size),
    nb_documents: Number(r.nb_documents),
    chunk_size: r.chunk_size,
    emoji: null,
    description: r.description,
    generated_description: null,
    explicit_user_members_count: Number(r.user_shares),
    explicit_workspace_members_count: Number(r.workspace_shares),
    org_sharing_role: r.org_role,
    generated_name: null,
  };
}

function toDocument(r: DocumentRow): DocumentRecord {
  const status = r.process_status as ProcessStatus;
  const main = r.tokens_main;
  const summary = r.tokens_summary;
  return {
    id: r.id,
    library_id: r.library_id,
    hash: r.hash,
    mime_type: r.mime_type,
    extension: r.extension,
    size: Number(r.size),
    name: r.name,
    summary: r.summary,
    created_at: r.created_at,
    last_processed_at: r.last_processed_at,
    number_of_pages: r.number_of_pages,
    process_status: status,
    uploaded_by_id: r.uploaded_by_id,
    uploaded_by_type: 'User',
    tokens_processing_main_content: main,
    tokens_processing_summary: summary,
    url: null,
    attributes: r.attributes,
    expires_at: r.expires_at,
    processing_status: LEGACY_STATUS[status] ?? 'Running',
    tokens_processing_total: (main ?? 0) + (summary ?? 0),
  };
}

export interface NewLibrary { name: string; description: string | null; chunkSize: number | null; ownerType: 'User' | 'Workspace'; workspaceId: string }

/** Creates a library owned by the principal (or its workspace) and returns it. */
export async function createLibrary(db: Db, p: Principal, input: NewLibrary): Promise<LibraryRecord> {
  const id = randomUUID();
  const now = isoNow();
  const ownerId = input.ownerType === 'User' ? p.userId : input.workspaceId;
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into libraries (id, organization_id, owner_type, owner_id, creator_id, name, description, chunk_size, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
      [id, p.organizationId, input.ownerType, ownerId, p.userId, input.name, input.description, input.chunkSize, now],
    );
    await tx.query(`insert into library_shares (library_id, share_with_type, share_with_uuid, role) values ($1, 'User', $2, 'Owner')`, [id, p.userId]);
    if (input.ownerType === 'Workspace') {
      await tx.query(`insert into library_shares (library_id, share_with_type, share_with_uuid, role) values ($1, 'Workspace', $2, 'Editor')`, [id, input.workspaceId]);
    }
  });
  return (await getLibrary(db, p, id))!.library;
}

/** The library and the principal's role in it, or undefined when unknown or not accessible. */
export async function getLibrary(db: Db, p: Principal, id: string): Promise<Accessible | undefined> {
  const { rows } = await db.query<LibraryRow>(`select * from (${LIBRARY_SELECT} and l.id = $5) x where role is not null`, [...principalParams(p), id]);
  return rows[0] && { library: toLibrary(rows[0]), role: rows[0].role as Role };
}

export interface LibraryQuery { offset: number; limit: number; search?: string | null; ownedByMe?: boolean | null }

/** Libraries the principal can access, newest first, and how many match in all. */
export async function listLibraries(db: Db, p: Principal, q: LibraryQuery): Promise<{ data: LibraryRecord[]; total: number }> {
  const params: unknown[] = principalParams(p);
  const where = ['role is not null'];
  if (q.search) { params.push(likePattern(q.search)); where.push(`name ilike $${params.length}`); }
  if (q.ownedByMe) where.push('creator_id = $1');
  const base = `from (${LIBRARY_SELECT}) x where ${where.join(' and ')}`;
  const total = await db.query<{ n: number | string }>(`select count(*) as n ${base}`, params);
  const { rows } = await db.query<LibraryRow>(`select * ${base} order by seq desc limit $${params.length + 1} offset $${params.length + 2}`, [...params, q.limit, q.offset]);
  return { data: rows.map(toLibrary), total: Number(total.rows[0].n) };
}

/** Changes the name and/or description. */
export async function updateLibrary(db: Db, id: string, changes: { name?: string; description?: string | null }): Promise<void> {
  await db.query(
    `update libraries set name = coalesce($2, name), description = case when $3 then $4 else description end, updated_at = $5 where id = $1`,
    [id, changes.name ?? null, changes.description !== undefined, changes.description ?? null, isoNow()],
  );
}

/** Deletes the library with its documents and access entries. */
export async function deleteLibrary(db: Db, id: string): Promise<void> {
  await db.query('delete from libraries where id = $1', [id]);
}

const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

// ---- access entries

const toShare = (libraryId: string, organizationId: string, r: { share_with_type: string; share_with_uuid: string; role: string }): ShareRecord => ({
  library_id: libraryId,
  user_id: r.share_with_type === 'User' ? r.share_with_uuid : null,
  org_id: organizationId,
  role: r.role as Role,
  share_with_type: r.share_with_type as EntityType,
  share_with_uuid: r.share_with_uuid,
});

/** Every access entry of the library, the owner's first. */
export async function listShares(db: Db, libraryId: string, organizationId: string): Promise<ShareRecord[]> {
  const { rows } = await db.query<{ share_with_type: string; share_with_uuid: string; role: string }>(
    `select * from library_shares where library_id = $1 order by case role when 'Owner' then 0 else 1 end, share_with_type, share_with_uuid`, [libraryId]);
  return rows.map((r) => toShare(libraryId, organizationId, r));
}

/** The entry naming this entity, or undefined. */
export async function getShare(db: Db, libraryId: string, organizationId: string, type: EntityType, uuid: string): Promise<ShareRecord | undefined> {
  const { rows } = await db.query<{ share_with_type: string; share_with_uuid: string; role: string }>(
    'select * from library_shares where library_id = $1 and share_with_type = $2 and share_with_uuid = $3', [libraryId, type, uuid]);
  return rows[0] && toShare(libraryId, organizationId, rows[0]);
}

/** Creates or changes the entry naming this entity. */
export async function putShare(db: Db, libraryId: string, type: EntityType, uuid: string, role: Role): Promise<void> {
  await db.query(
    `insert into library_shares (library_id, share_with_type, share_with_uuid, role) values ($1, $2, $3, $4)
     on conflict (library_id, share_with_type, share_with_uuid) do update set role = excluded.role`, [libraryId, type, uuid, role]);
}

/** Removes the entry naming this entity. */
export async function deleteShare(db: Db, libraryId: string, type: EntityType, uuid: string): Promise<void> {
  await db.query('delete from library_shares where library_id = $1 and share_with_type = $2 and share_with_uuid = $3', [libraryId, type, uuid]);
}

// ---- documents

export interface NewDocument { name: string; mimeType: string; extension: string | null; bytes: Uint8Array; uploadedBy: string }

/**
 * Stores an uploaded document (queued for processing), or returns the live document of the library with the
 * same content: `created` tells which. Expired documents of the library are purged first.
 */
export async function createDocument(db: Db, libraryId: string, doc: NewDocument): Promise<{ document: DocumentRecord; created: boolean }> {
  const hash = createHash('sha256').update(doc.bytes).digest('hex');
  const now = isoNow();
  const id = randomUUID();
  const existing = await db.transaction(async (tx) => {
    await tx.query('delete from library_documents where library_id = $1 and expires_at is not null and expires_at <= $2', [libraryId, now]);
    const same = await tx.query<{ id: string }>('select id from library_documents where library_id = $1 and hash = $2 limit 1', [libraryId, hash]);
    if (same.rows[0]) return same.rows[0].id;
    await tx.query(
      `insert into library_documents (id, library_id, name, hash, mime_type, extension, size, uploaded_by_id, created_at, process_status)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'todo')`,
      [id, libraryId, doc.name, hash, doc.mimeType, doc.extension, doc.bytes.byteLength, doc.uploadedBy, now],
    );
    await writeChunks(tx, { table: 'library_document_bytes', key: 'document_id' }, id, doc.bytes);
    return undefined;
  });
  return { document: (await getDocument(db, libraryId, existing ?? id))!, created: existing === undefined };
}

/** The live document of the library, or undefined. */
export async function getDocument(db: Db, libraryId: string, id: string): Promise<DocumentRecord | undefined> {
  const { rows } = await db.query<DocumentRow>(`select * from library_documents d where d.library_id = $1 and d.id = $2 and ${live(3)}`, [libraryId, id, isoNow()]);
  return rows[0] && toDocument(rows[0]);
}

/** A document by id alone (signed URLs and processing carry their own proof). */
export async function getDocumentById(db: Db, id: string): Promise<DocumentRecord | undefined> {
  const { rows } = await db.query<DocumentRow>(`select * from library_documents d where d.id = $1 and ${live(2)}`, [id, isoNow()]);
  return rows[0] && toDocument(rows[0]);
}

/** Columns documents can be sorted by. */
export const DOCUMENT_SORT_FIELDS = ['created_at', 'name', 'size', 'last_processed_at', 'process_status'] as const;
export type DocumentSortField = (typeof DOCUMENT_SORT_FIELDS)[number];

export interface DocumentQuery {
  offset: number;
  limit: number;
  search?: string | null;
  /** Attribute → value (equal) or array of values (any of). */
  attributes?: Record<string, unknown> | null;
  sortBy: DocumentSortField;
  sortOrder: 'asc' | 'desc';
}

/** A page of the library's live documents and how many match in all. */
export async function listDocuments(db: Db, libraryId: string, q: DocumentQuery): Promise<{ data: DocumentRecord[]; total: number }> {
  const params: unknown[] = [libraryId, isoNow()];
  const where = ['d.library_id = $1', live(2)];
  if (q.search) { params.push(likePattern(q.search)); where.push(`d.name ilike $${params.length}`); }
  for (const [key, value] of Object.entries(q.attributes ?? {})) {
    const anyOf = (Array.isArray(value) ? value : [value]).map((v) => {
      params.push(JSON.stringify({ [key]: v }));
      return `d.attributes @> $${params.length}::jsonb`;
    });
    where.push(anyOf.length ? `(${anyOf.join(' or ')})` : 'false');
  }
  const clause = where.join(' and ');
  const total = await db.query<{ n: number | string }>(`select count(*) as n from library_documents d where ${clause}`, params);
  const order = `d.${q.sortBy} ${q.sortOrder} nulls last, d.seq ${q.sortOrder}`;
  const { rows } = await db.query<DocumentRow>(`select * from library_documents d where ${clause} order by ${order} limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, q.limit, q.offset]);
  return { data: rows.map(toDocument), total: Number(total.rows[0].n) };
}

/** Changes the name, attributes and/or expiry (undefined: unchanged). */
export async function updateDocument(db: Db, id: string, changes: { name?: string; attributes?: Record<string, unknown> | null; expiresAt?: string | null }): Promise<void> {
  await db.query(
    `update library_documents set name = coalesce($2, name),
       attributes = case when $3 then $4::jsonb else attributes end,
       expires_at = case when $5 then $6 else expires_at end
     where id = $1`,
    [id, changes.name ?? null, changes.attributes !== undefined, changes.attributes == null ? null : JSON.stringify(changes.attributes), changes.expiresAt !== undefined, changes.expiresAt ?? null],
  );
}

/** Deletes the document with its bytes and chunks. */
export async function deleteDocument(db: Db, id: string): Promise<void> {
  await db.query('delete from library_documents where id = $1', [id]);
}

/** The whole content of a document. */
export async function documentBytes(db: Db, id: string): Promise<Uint8Array> {
  return readChunks(db, { table: 'library_document_bytes', key: 'document_id' }, id);
}

/** The extracted pages of a processed document (null before processing has succeeded) and why the last processing failed. */
export async function documentText(db: Db, id: string): Promise<{ pages: string[] | null; failure: string | null }> {
  const { rows } = await db.query<{ pages: string[] | null; failure: string | null }>('select pages, failure from library_documents where id = $1', [id]);
  return { pages: rows[0]?.pages ?? null, failure: rows[0]?.failure ?? null };
}

// ---- processing state

/** Queues the document for (re)processing. */
export async function markQueued(db: Db, id: string): Promise<void> {
  await db.query(`update library_documents set process_status = 'todo', failure = null where id = $1`, [id]);
}

/** Marks the document as being processed. */
export async function markInProgress(db: Db, id: string): Promise<void> {
  await db.query(`update library_documents set process_status = 'in_progress' where id = $1`, [id]);
}

export interface ProcessedDocument {
  pages: string[];
  summary: string | null;
  tokensMain: number;
  tokensSummary: number;
  chunks: Array<{ text: string; embedding: Float32Array }>;
}

/** Stores a successful processing: pages, summary, token counts and the embedded chunks (replacing earlier ones). */
export async function markDone(db: Db, id: string, result: ProcessedDocument): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('delete from library_document_chunks where document_id = $1', [id]);
    for (const [position, chunk] of result.chunks.entries()) {
      const vector = Buffer.from(chunk.embedding.buffer, chunk.embedding.byteOffset, chunk.embedding.byteLength).toString('base64');
      await tx.query(`insert into library_document_chunks (document_id, position, text, embedding) values ($1, $2, $3, decode($4, 'base64'))`, [id, position, chunk.text, vector]);
    }
    await tx.query(
      `update library_documents set process_status = 'done', failure = null, pages = $2::jsonb, number_of_pages = $3, summary = $4,
         tokens_main = $5, tokens_summary = $6, last_processed_at = $7 where id = $1`,
      [id, JSON.stringify(result.pages), result.pages.length, result.summary, result.tokensMain, result.tokensSummary, isoNow()],
    );
  });
}

/** Records a failed processing and why. */
export async function markFailed(db: Db, id: string, reason: string): Promise<void> {
  await db.query(`update library_documents set process_status = 'error', failure = $2, last_processed_at = $3 where id = $1`, [id, reason, isoNow()]);
}


/** The `chunk_size` of the document's library (null: the default). */
export async function chunkSizeOf(db: Db, documentId: string): Promise<number | null> {
  const { rows } = await db.query<{ chunk_size: number | null }>('select l.chunk_size from libraries l join library_documents d on d.library_id = l.id where d.id = $1', [documentId]);
  return rows[0]?.chunk_size ?? null;
}
