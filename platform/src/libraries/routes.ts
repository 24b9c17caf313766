/**
 * Document libraries: libraries, their documents (upload, background processing, text), sharing.
 * Durable in PGlite (libraries/store.ts); processing in libraries/processor.ts.
 *
 * - `GET /v1/libraries` (`page` from 0 with `pagination`, or `page_token`; `page_size` ≤100; `search` in the
 *   name; `filter_owned_by_me`) → `{pagination?, data, next_page_token}`; `POST` (`name`*, `description`,
 *   `chunk_size` 256–32768, `owner_type` User | Workspace (default)) → 201 the library.
 * - `GET|PUT|PATCH|DELETE /v1/libraries/{id}`: any role reads, Editors update, only the Owner deletes.
 * - Documents: `GET …/documents` (`search`, `page`, `page_size` ≤100, `filters_attributes` = JSON object of
 *   attribute → value or array of values, `sort_by` created_at | name | size | last_processed_at |
 *   process_status, `sort_order` asc | desc) → `{pagination, data}`; `POST` multipart `file` → 201 queued for
 *   processing, or 200 with the existing document when the library already holds the same content;
 *   `GET|PUT|PATCH|DELETE …/documents/{id}` (delete → 204); `…/text_content` (`page_start` inclusive,
 *   `page_end` exclusive, 0-based) → `{text}`, 409 until processing succeeded; `…/status`; `…/signed-url`
 *   and `…/extracted-text-signed-url` → a JSON string URL valid 30 minutes without a key (forged → 403);
 *   `POST …/reprocess` → 204. Writes need the Editor role.
 * - `GET /v1/libraries/{id}/share` → `{data}`; `PUT` (`level` Viewer | Editor, `share_with_type` User |
 *   Workspace | Org, `share_with_uuid` in this organization) and `DELETE` (the entry) → the entry. Only the
 *   Owner shares; anyone may remove their own User entry; the Owner's entry cannot be changed.
 * Ids are UUIDs (malformed → 422); a library the caller has no role in is 404, a role too low is 403.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ValidationIssue } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { callerOf } from '../http/caller.js';
import { PlatformHttpError, forbidden, genericError, invalidField, notFound, validationError } from '../http/errors.js';
import { pathUuid, readJson, validate } from '../http/validation.js';
import { checkFilePart, readMultipart } from '../http/multipart.js';
import { checkSignedUrl, signFileUrl } from '../files/signed-url.js';
import { urlSecret } from '../files/store.js';
import { documentType } from './extract.js';
import { DocumentProcessor } from './processor.js';
import { principalOf as callerPrincipal } from './principal.js';
import {
  DOCUMENT_SORT_FIELDS, atLeast, createDocument, createLibrary, deleteDocument, deleteLibrary, deleteShare, documentBytes, documentText,
  getDocument, getDocumentById, getLibrary, getShare, listDocuments, listLibraries, listShares, markQueued, putShare, updateDocument,
  updateLibrary, type Accessible, type DocumentRecord, type Principal, type Role,
} from './store.js';
import { parseJsonDocument } from '../http/input-guard.js';

/** Lifetime of signed document URLs, in seconds (as the real service: 30 minutes). */
const SIGNED_URL_SECONDS = 30 * 60;

const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');
const name = z.string().trim().min(1).max(512);

const CreateLibrarySchema = z.object({
  name,
  description: z.string().max(10_000).nullable().optional(),
  chunk_size: z.number().int().min(256).max(32768).nullable().optional(),
  owner_type: z.enum(['User', 'Workspace']).nullable().optional(),
});
const UpdateLibrarySchema = z.object({ name: name.optional(), description: z.string().max(10_000).nullable().optional() });

const scalar = z.union([z.boolean(), z.string(), z.number()]);
const AttributesSchema = z.record(z.string(), z.union([scalar, z.array(scalar)]));
const UpdateDocumentSchema = z.object({
  name: name.optional(),
  attributes: AttributesSchema.nullable().optional(),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});

const entity = { share_with_uuid: z.string().min(1), share_with_type: z.enum(['User', 'Workspace', 'Org']), org_id: z.string().nullable().optional() };
const SharingSchema = z.object({ level: z.enum(['Viewer', 'Editor']), ...entity });
const SharingDeleteSchema = z.object(entity);

const pageSize = z.coerce.number().int().min(1).max(100).default(100);
const page = z.coerce.number().int().min(0).default(0);
const LibraryListSchema = z.object({ page: page.optional(), page_size: pageSize, page_token: z.string().optional(), search: z.string().optional(), filter_owned_by_me: queryBool.optional() });
const DocumentListSchema = z.object({
  page,
  page_size: pageSize,
  search: z.string().optional(),
  filters_attributes: z.string().optional(),
  sort_by: z.enum(DOCUMENT_SORT_FIELDS).default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
});
const TextQuerySchema = z.object({ page_start: z.coerce.number().int().min(0).optional(), page_end: z.coerce.number().int().min(0).optional() });

const pagination = (total: number, pageIndex: number, size: number) => ({
  total_items: total,
  total_pages: Math.ceil(total / size),
  current_page: pageIndex,
  page_size: size,
  has_more: (pageIndex + 1) * size < total,
});

/** `page_token` of the libraries list: the offset of the next page, opaque to clients. */
const encodeToken = (offset: number) => Buffer.from(`libraries:${offset}`).toString('base64url');
function decodeToken(token: string): number {
  const offset = /^libraries:(\d+)$/.exec(Buffer.from(token, 'base64url').toString())?.[1];
  if (offset === undefined) throw invalidField(['query', 'page_token'], 'Invalid page_token: pass back the next_page_token of a previous answer', 'value_error', token);
  return Number(offset);
}

/** Signed URLs name what they serve in the signature, so a document URL cannot serve another document or its text. */
const signedSubject = (what: 'content' | 'extracted-text', documentId: string) => `library-document:${what}:${documentId}`;
const signedPath = (what: 'content' | 'extracted-text', documentId: string) => `/signed/libraries/documents/${encodeURIComponent(documentId)}/${what}`;

const textNotReady = (doc: DocumentRecord, failure: string | null) =>
  doc.process_status === 'error'
    ? genericError(409, `Document '${doc.id}' could not be processed: ${failure ?? 'unknown reason'}; fix the document or POST …/reprocess`, 'invalid_request_error', 'document_processing_failed')
    : genericError(409, `Document '${doc.id}' is still being processed (process_status '${doc.process_status}'); poll …/status until it is 'done'`, 'invalid_request_error', 'document_not_processed');

export function libraryRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const processor = new DocumentProcessor(ctx);
  void processor.resume().catch(() => { /* the platform closed before start-up finished; the next start resumes */ });

  const principalOf = (c: Context): Promise<Principal> => callerPrincipal(ctx, callerOf(c));


  /** The library of the path if the caller has at least `needed`: 404 without any role, 403 below `needed`. */
  const library = async (c: Context, needed: Role): Promise<Accessible & { principal: Principal }> => {
    const id = pathUuid(c, 'library_id');
    const principal = await principalOf(c);
    const found = await getLibrary(ctx.db, principal, id);
    if (!found) throw notFound(`Library '${id}' not found`);
    if (!atLeast(found.role, needed)) throw forbidden(`This needs the ${needed} role on library '${id}'; you are ${found.role}`);
    return { ...found, principal };
  };

  const document = async (c: Context, needed: Role) => {
    const lib = await library(c, needed);
    const id = pathUuid(c, 'document_id');
    const doc = await getDocument(ctx.db, lib.library.id, id);
    if (!doc) throw notFound(`Document '${id}' not found in library '${lib.library.id}'`);
    return { lib, doc };
  };

  // ---- libraries

  app.get('/', async (c) => {
    const q = validate(LibraryListSchema, c.req.query(), ['query']);
    const offset = q.page_token !== undefined ? decodeToken(q.page_token) : (q.page ?? 0) * q.page_size;
    const { data, total } = await listLibraries(ctx.db, await principalOf(c), { offset, limit: q.page_size, search: q.search, ownedByMe: q.filter_owned_by_me });
    const more = offset + data.length < total;
    return c.json({
      ...(q.page_token === undefined ? { pagination: pagination(total, q.page ?? 0, q.page_size) } : {}),
      data,
      next_page_token: more ? encodeToken(offset + data.length) : null,
    });
  });

  app.post('/', async (c) => {
    const body = await readJson(c, CreateLibrarySchema, ctx.limits.maxJsonBytes);
    const caller = callerOf(c);
    const created = await createLibrary(ctx.db, await principalOf(c), {
      name: body.name, description: body.description ?? null, chunkSize: body.chunk_size ?? null, ownerType: body.owner_type ?? 'Workspace', workspaceId: caller.workspaceId,
    });
    return c.json(created, 201);
  });

  app.get('/:library_id', async (c) => c.json((await library(c, 'Viewer')).library));

  const updateLibraryRoute = async (c: Context) => {
    const { library: lib, principal } = await library(c, 'Editor');
    const body = await readJson(c, UpdateLibrarySchema, ctx.limits.maxJsonBytes);
    await updateLibrary(ctx.db, lib.id, body);
    return c.json((await getLibrary(ctx.db, principal, lib.id))!.library);
  };
  app.put('/:library_id', updateLibraryRoute);
  app.patch('/:library_id', updateLibraryRoute);

  app.delete('/:library_id', async (c) => {
    const { library: lib } = await library(c, 'Owner');
    await deleteLibrary(ctx.db, lib.id);
    return c.json(lib);
  });

  // ---- documents

  app.get('/:library_id/documents', async (c) => {
    const { library: lib } = await library(c, 'Viewer');
    const q = validate(DocumentListSchema, c.req.query(), ['query']);
    let attributes: Record<string, unknown> | undefined;
    if (q.filters_attributes) {
      let parsed: unknown;
      try { parsed = parseJsonDocument(q.filters_attributes); } catch { throw invalidField(['query', 'filters_attributes'], 'filters_attributes must be a JSON object of attribute → value (or array of values)', 'json_invalid', q.filters_attributes); }
      attributes = validate(AttributesSchema, parsed, ['query', 'filters_attributes']);
    }
    const { data, total } = await listDocuments(ctx.db, lib.id, { offset: q.page * q.page_size, limit: q.page_size, search: q.search, attributes, sortBy: q.sort_by, sortOrder: q.sort_order });
    return c.json({ pagination: pagination(total, q.page, q.page_size), data });
  });

  app.post('/:library_id/documents', async (c) => {
    const { library: lib } = await library(c, 'Editor');
    const maxFileBytes = ctx.ocrInput.maxBytes;
    const form = await readMultipart(c.req.raw, { maxFileBytes, route: 'POST /v1/libraries/{library_id}/documents (field file)', fileField: 'file' });
    const entry = form.get('file');
    const issue = (msg: string, type = 'value_error'): ValidationIssue => ({ loc: ['body', 'file'], msg, type });
    if (entry === null) throw validationError([issue('Field required', 'missing')]);
    const file = checkFilePart(entry, maxFileBytes, 'file');
    if ('loc' in file) throw validationError([file]);
    const bytes = new Uint8Array(await file.arrayBuffer());
    const filename = file.name || 'document';
    const type = documentType(filename, file.type, bytes);
    if (!type) throw validationError([issue('Unsupported document: upload a PDF, an image (PNG, JPEG, GIF, WebP, BMP) or UTF-8 text (plain text, Markdown, HTML, JSON, CSV…)')]);
    const { document: doc, created } = await createDocument(ctx.db, lib.id, { name: filename, mimeType: type.mimeType, extension: type.extension, bytes, uploadedBy: callerOf(c).userId });
    if (created) processor.enqueue(doc.id);
    return c.json(doc, created ? 201 : 200);
  });

  app.get('/:library_id/documents/:document_id', async (c) => c.json((await document(c, 'Viewer')).doc));

  const updateDocumentRoute = async (c: Context) => {
    const { lib, doc } = await document(c, 'Editor');
    const body = await readJson(c, UpdateDocumentSchema, ctx.limits.maxJsonBytes);
    await updateDocument(ctx.db, doc.id, {
      name: body.name,
      attributes: body.attributes,
      expiresAt: body.expires_at === undefined || body.expires_at === null ? body.expires_at : new Date(body.expires_at).toISOString(),
    });
    const updated = await getDocument(ctx.db, lib.library.id, doc.id);
    // An expires_at in the past deletes the document at once; answer with what it was.
    return c.json(updated ?? { ...doc, name: body.name ?? doc.name, expires_at: new Date(body.expires_at!).toISOString() });
  };
  app.put('/:library_id/documents/:document_id', updateDocumentRoute);
  app.patch('/:library_id/documents/:document_id', updateDocumentRoute);

  app.delete('/:library_id/documents/:document_id', async (c) => {
    const { doc } = await document(c, 'Editor');
    await deleteDocument(ctx.db, doc.id);
    return c.body(null, 204);
  });

  app.get('/:library_id/documents/:document_id/text_content', async (c) => {
    const { doc } = await document(c, 'Viewer');
    const q = validate(TextQuerySchema, c.req.query(), ['query']);
    const { pages, failure } = await documentText(ctx.db, doc.id);
    if (!pages) throw textNotReady(doc, failure);
    return c.json({ text: pages.slice(q.page_start ?? 0, q.page_end ?? pages.length).join('\n\n') });
  });

  app.get('/:library_id/documents/:document_id/status', async (c) => {
    const { doc } = await document(c, 'Viewer');
    return c.json({ document_id: doc.id, process_status: doc.process_status, processing_status: doc.processing_status });
  });

  const signedUrl = async (c: Context, what: 'content' | 'extracted-text', documentId: string) => {
    const expires = Math.floor(Date.now() / 1000) + SIGNED_URL_SECONDS;
    const url = new URL(signedPath(what, documentId), c.req.url);
    url.searchParams.set('expires', String(expires));
    url.searchParams.set('signature', signFileUrl(await urlSecret(ctx.db), signedSubject(what, documentId), expires));
    return c.json(url.href);
  };

  app.get('/:library_id/documents/:document_id/signed-url', async (c) => signedUrl(c, 'content', (await document(c, 'Viewer')).doc.id));

  app.get('/:library_id/documents/:document_id/extracted-text-signed-url', async (c) => {
    const { doc } = await document(c, 'Viewer');
    const { pages, failure } = await documentText(ctx.db, doc.id);
    if (!pages) throw textNotReady(doc, failure);
    return signedUrl(c, 'extracted-text', doc.id);
  });

  app.post('/:library_id/documents/:document_id/reprocess', async (c) => {
    const { doc } = await document(c, 'Editor');
    await markQueued(ctx.db, doc.id);
    processor.enqueue(doc.id);
    return c.body(null, 204);
  });

  // ---- sharing

  app.get('/:library_id/share', async (c) => {
    const { library: lib, principal } = await library(c, 'Viewer');
    return c.json({ data: await listShares(ctx.db, lib.id, principal.organizationId) });
  });

  /** 422 unless the entity exists in the caller's organization (a library is never shared outside it). */
  const checkEntity = async (principal: Principal, type: 'User' | 'Workspace' | 'Org', uuid: string) => {
    const outside = (what: string) => invalidField(['body', 'share_with_uuid'], `${what} '${uuid}' is not in this organization; a library cannot be shared outside it`, 'value_error', uuid);
    if (type === 'Org' && uuid !== principal.organizationId) throw outside('Organization');
    if (type === 'User') {
      try {
        await ctx.directory.tenancy.members.get(uuid);
      } catch (err) {
        if (err instanceof PlatformHttpError && err.status === 404) throw outside('User');
        throw err;
      }
    }
    if (type === 'Workspace') {
      const { rows } = await ctx.db.query('select 1 from tenancy_workspaces where id = $1 and organization_id = $2', [uuid, principal.organizationId]);
      if (!rows.length) throw outside('Workspace');
    }
  };

  app.put('/:library_id/share', async (c) => {
    const { library: lib, principal } = await library(c, 'Owner');
    const body = await readJson(c, SharingSchema, ctx.limits.maxJsonBytes);
    const current = await getShare(ctx.db, lib.id, principal.organizationId, body.share_with_type, body.share_with_uuid);
    if (current?.role === 'Owner') throw invalidField(['body', 'share_with_uuid'], 'The owner of a library cannot change their own role', 'value_error', body.share_with_uuid);
    await checkEntity(principal, body.share_with_type, body.share_with_uuid);
    await putShare(ctx.db, lib.id, body.share_with_type, body.share_with_uuid, body.level);
    return c.json((await getShare(ctx.db, lib.id, principal.organizationId, body.share_with_type, body.share_with_uuid))!);
  });

  app.delete('/:library_id/share', async (c) => {
    const { library: lib, role, principal } = await library(c, 'Viewer');
    const body = await readJson(c, SharingDeleteSchema, ctx.limits.maxJsonBytes);
    const own = body.share_with_type === 'User' && body.share_with_uuid === principal.userId;
    if (role !== 'Owner' && !own) throw forbidden(`Only the owner of library '${lib.id}' can remove an access other than yours`);
    const entry = await getShare(ctx.db, lib.id, principal.organizationId, body.share_with_type, body.share_with_uuid);
    if (!entry) throw notFound(`Library '${lib.id}' has no access entry for ${body.share_with_type} '${body.share_with_uuid}'`);
    if (entry.role === 'Owner') throw invalidField(['body', 'share_with_uuid'], 'The owner of a library cannot remove their own access', 'value_error', body.share_with_uuid);
    await deleteShare(ctx.db, lib.id, body.share_with_type, body.share_with_uuid);
    return c.json(entry);
  });

  return app;
}

/** The documents' signed URLs (`/signed/libraries/…`, outside /v1): no API key; the signature is the proof. */
export function signedLibraryRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  const signedDocument = async (c: Context, what: 'content' | 'extracted-text') => {
    const id = c.req.param('document_id') ?? '';
    const refused = checkSignedUrl(await urlSecret(ctx.db), signedSubject(what, id), c.req.query('expires'), c.req.query('signature'), 'the signed-url route of the document');
    if (refused) throw forbidden(refused);
    const doc = await getDocumentById(ctx.db, id);
    if (!doc) throw notFound(`Document '${id}' not found`);
    return doc;
  };

  app.get('/documents/:document_id/content', async (c) => {
    const doc = await signedDocument(c, 'content');
    return new Response(await documentBytes(ctx.db, doc.id) as Uint8Array<ArrayBuffer>, {
      headers: {
        'content-type': doc.mime_type ?? 'application/octet-stream',
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(doc.name)}`,
      },
    });
  });

  app.get('/documents/:document_id/extracted-text', async (c) => {
    const doc = await signedDocument(c, 'extracted-text');
    const { pages, failure } = await documentText(ctx.db, doc.id);
    if (!pages) throw textNotReady(doc, failure);
    return c.text(pages.join('\n\n'));
  });

  return app;
}
