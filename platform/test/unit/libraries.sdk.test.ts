// Document libraries through the official SDK, unmodified: every call of beta.libraries, .documents and
// .accesses parses the platform's answers (status codes, content types, dates, enums), and errors surface as
// the SDK's typed errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mistral } from '@mistralai/mistralai';
import { HTTPValidationError } from '@mistralai/mistralai/models/errors/httpvalidationerror.js';
import { MistralError } from '@mistralai/mistralai/models/errors/mistralerror.js';
import type { Platform } from '../../src/app.js';
import { BASE, call, startPlatform } from './helpers.js';
import { sdkFor } from './sdk.js';
import { HEADING, textLayerPdf } from './ocr-fixtures.mjs';

let platform: Platform;
let sdk: Mistral;
beforeAll(async () => {
  platform = await startPlatform({ members: [{ apiKey: 'member-key', email: 'member@example.com' }] });
  sdk = sdkFor(platform);
});
afterAll(() => platform.close());

/** Polls the SDK's status call until processing finished. */
async function waitDone(libraryId: string, documentId: string) {
  for (let i = 0; i < 600; i++) {
    const status = await sdk.beta.libraries.documents.status({ libraryId, documentId });
    if (status.processStatus === 'done' || status.processStatus === 'error') return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('processing did not finish');
}

describe('libraries through the official SDK', () => {
  it('create, list, get, update (PATCH and PUT), delete', async () => {
    const lib = await sdk.beta.libraries.create({ name: 'SDK library', description: 'made by the SDK', chunkSize: 1024 });
    expect(lib).toMatchObject({ name: 'SDK library', description: 'made by the SDK', chunkSize: 1024, ownerType: 'Workspace', nbDocuments: 0, totalSize: 0 });
    expect(lib.createdAt).toBeInstanceOf(Date);

    const list = await sdk.beta.libraries.list({ search: 'SDK' });
    expect(list.data.map((l) => l.id)).toContain(lib.id);
    expect(list.pagination?.totalItems).toBeGreaterThanOrEqual(1);
    expect(await sdk.beta.libraries.get({ libraryId: lib.id })).toEqual(lib);

    const patched = await sdk.beta.libraries.update({ libraryId: lib.id, updateLibraryRequest: { name: 'Renamed' } });
    expect(patched).toMatchObject({ name: 'Renamed', description: 'made by the SDK' });
    const put = await sdk.beta.libraries.librariesUpdateV1({ libraryId: lib.id, updateLibraryRequest: { description: 'again' } });
    expect(put).toMatchObject({ name: 'Renamed', description: 'again' });

    const deleted = await sdk.beta.libraries.delete({ libraryId: lib.id });
    expect(deleted?.id).toBe(lib.id);
    await expect(sdk.beta.libraries.get({ libraryId: lib.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(sdk.beta.libraries.get({ libraryId: 'nope' })).rejects.toBeInstanceOf(HTTPValidationError);
    await expect(sdk.beta.libraries.create({ name: '' })).rejects.toBeInstanceOf(HTTPValidationError);
  });

  it('documents: upload (201 and duplicate 200), status, text, list, update, signed URLs, reprocess, delete', async () => {
    const lib = await sdk.beta.libraries.create({ name: 'SDK docs' });
    const pdf = await textLayerPdf();
    const doc = await sdk.beta.libraries.documents.upload({ libraryId: lib.id, requestBody: { file: { fileName: 'report.pdf', content: pdf } } });
    expect(doc).toMatchObject({ libraryId: lib.id, name: 'report.pdf', mimeType: 'application/pdf', extension: 'pdf', size: pdf.byteLength, uploadedByType: 'User' });
    expect(doc.createdAt).toBeInstanceOf(Date);
    const dup = await sdk.beta.libraries.documents.upload({ libraryId: lib.id, requestBody: { file: new File([pdf], 'copy.pdf', { type: 'application/pdf' }) } });
    expect(dup.id).toBe(doc.id);

    const status = await waitDone(lib.id, doc.id);
    expect(status).toEqual({ documentId: doc.id, processStatus: 'done', processingStatus: 'Completed' });
    const text = await sdk.beta.libraries.documents.textContent({ libraryId: lib.id, documentId: doc.id });
    expect(text.text).toContain(`# ${HEADING}`);
    const got = await sdk.beta.libraries.documents.get({ libraryId: lib.id, documentId: doc.id });
    expect(got).toMatchObject({ numberOfPages: 1, processStatus: 'done', processingStatus: 'Completed' });
    expect(got.lastProcessedAt).toBeInstanceOf(Date);
    expect(got.summary).toContain(HEADING);
    expect(got.tokensProcessingTotal).toBeGreaterThan(0);

    const txt = await sdk.beta.libraries.documents.upload({ libraryId: lib.id, requestBody: { file: { fileName: 'notes.md', content: new TextEncoder().encode('# Notes\n\nShort notes.') } } });
    const listed = await sdk.beta.libraries.documents.list({ libraryId: lib.id, sortBy: 'name', sortOrder: 'asc' });
    expect(listed.data.map((d) => d.name)).toEqual(['notes.md', 'report.pdf']);
    expect(listed.pagination).toEqual({ totalItems: 2, totalPages: 1, currentPage: 0, pageSize: 100, hasMore: false });

    const expiresAt = new Date(Date.now() + 86_400_000);
    const updated = await sdk.beta.libraries.documents.update({ libraryId: lib.id, documentId: txt.id, updateDocumentRequest: { name: 'notes-v2.md', attributes: { kind: 'notes', tags: ['a', 'b'] }, expiresAt } });
    expect(updated).toMatchObject({ name: 'notes-v2.md', attributes: { kind: 'notes', tags: ['a', 'b'] } });
    expect(updated.expiresAt?.getTime()).toBe(expiresAt.getTime());
    const put = await sdk.beta.libraries.documents.librariesDocumentsUpdateV1({ libraryId: lib.id, documentId: txt.id, updateDocumentRequest: { attributes: null } });
    expect(put.attributes).toBeNull();
    const filtered = await sdk.beta.libraries.documents.list({ libraryId: lib.id, filtersAttributes: JSON.stringify({ kind: 'notes' }) });
    expect(filtered.data).toEqual([]);

    const url = await sdk.beta.libraries.documents.getSignedUrl({ libraryId: lib.id, documentId: doc.id });
    const bytes = new Uint8Array(await (await platform.fetch(new Request(url))).arrayBuffer());
    expect(bytes).toEqual(pdf);
    const textUrl = await sdk.beta.libraries.documents.extractedTextSignedUrl({ libraryId: lib.id, documentId: doc.id });
    expect(await (await platform.fetch(new Request(textUrl))).text()).toBe(text.text);

    expect(await sdk.beta.libraries.documents.reprocess({ libraryId: lib.id, documentId: doc.id })).toBeUndefined();
    expect((await waitDone(lib.id, doc.id)).processStatus).toBe('done');

    expect(await sdk.beta.libraries.documents.delete({ libraryId: lib.id, documentId: txt.id })).toBeUndefined();
    expect((await sdk.beta.libraries.get({ libraryId: lib.id })).nbDocuments).toBe(1);
    await expect(sdk.beta.libraries.documents.get({ libraryId: lib.id, documentId: txt.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('accesses: list, updateOrCreate, delete, enforced for the member', async () => {
    const lib = await sdk.beta.libraries.create({ name: 'SDK shared', ownerType: 'User' });
    const member = (await call(platform, '/v1/users/me', { key: 'member-key' })).json;
    const memberSdk = sdkFor(platform, BASE, 'member-key');
    await expect(memberSdk.beta.libraries.get({ libraryId: lib.id })).rejects.toMatchObject({ statusCode: 404 });

    const entry = await sdk.beta.libraries.accesses.updateOrCreate({ libraryId: lib.id, sharingRequest: { level: 'Viewer', shareWithUuid: member.id, shareWithType: 'User' } });
    expect(entry).toMatchObject({ libraryId: lib.id, role: 'Viewer', shareWithType: 'User', shareWithUuid: member.id, userId: member.id });
    const list = await sdk.beta.libraries.accesses.list({ libraryId: lib.id });
    expect(list.data.map((s) => s.role)).toEqual(['Owner', 'Viewer']);

    expect((await memberSdk.beta.libraries.get({ libraryId: lib.id })).id).toBe(lib.id);
    const denied = memberSdk.beta.libraries.documents.upload({ libraryId: lib.id, requestBody: { file: { fileName: 'm.txt', content: new TextEncoder().encode('member') } } });
    await expect(denied).rejects.toBeInstanceOf(MistralError);
    await expect(denied).rejects.toMatchObject({ statusCode: 403 });

    const removed = await sdk.beta.libraries.accesses.delete({ libraryId: lib.id, sharingDelete: { shareWithUuid: member.id, shareWithType: 'User' } });
    expect(removed?.role).toBe('Viewer');
    await expect(memberSdk.beta.libraries.get({ libraryId: lib.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(sdk.beta.libraries.accesses.updateOrCreate({ libraryId: lib.id, sharingRequest: { level: 'Owner' as 'Viewer', shareWithUuid: member.id, shareWithType: 'User' } }))
      .rejects.toBeInstanceOf(HTTPValidationError);
  });
});
