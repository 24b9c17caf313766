// Document libraries over plain HTTP: libraries CRUD and counters, document upload (text, HTML, PDF with a
// text layer) and background processing to `done`, text content and pages, duplicates, reprocess, signed URLs,
// listing (search, filters, sort, pages), sharing enforced for a member, bad input, unknown ids, durability.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/app.js';
import { BASE, ISO_Z, call, startPlatform } from './helpers.js';
import { HEADING, PARAGRAPHS, textLayerPdf } from './ocr-fixtures.mjs';

const MEMBER_KEY = 'member-key';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ members: [{ apiKey: MEMBER_KEY, email: 'member@example.com' }] });
});
afterAll(() => platform.close());

async function upload(p: Platform, libraryId: string, content: BlobPart, filename: string, type = '', key?: string) {
  const form = new FormData();
  form.append('file', new Blob([content], { type }), filename);
  return call(p, `/v1/libraries/${libraryId}/documents`, { method: 'POST', rawBody: form, key });
}

async function newLibrary(p: Platform, body: Record<string, unknown> = { name: 'Docs' }, key?: string) {
  const res = await call(p, '/v1/libraries', { body, key });
  expect(res.status).toBe(201);
  return res.json;
}

/** Polls the status until processing has finished; returns the final status body. */
async function processed(p: Platform, libraryId: string, documentId: string) {
  for (let i = 0; i < 600; i++) {
    const res = await call(p, `/v1/libraries/${libraryId}/documents/${documentId}/status`);
    expect(res.status).toBe(200);
    if (res.json.process_status === 'done' || res.json.process_status === 'error') return res.json;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('processing did not finish');
}

const NOTES = 'Parley keeps documents offline. The local platform extracts their text! Then it embeds chunks.\n\nSecond paragraph about llamas.';

describe('libraries', () => {
  it('creates, reads, updates, lists and deletes libraries', async () => {
    const lib = await newLibrary(platform, { name: 'Handbook', description: 'Team handbook', chunk_size: 512 });
    expect(lib).toMatchObject({ name: 'Handbook', description: 'Team handbook', chunk_size: 512, owner_type: 'Workspace', nb_documents: 0, total_size: 0 });
    expect(lib.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(lib.created_at).toMatch(ISO_Z);
    const me = await call(platform, '/v1/users/me');
    expect(lib.owner_id).toBe(me.json.workspace.id);

    const got = await call(platform, `/v1/libraries/${lib.id}`);
    expect(got.json).toEqual(lib);

    const put = await call(platform, `/v1/libraries/${lib.id}`, { method: 'PUT', body: { name: 'Handbook 2' } });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ name: 'Handbook 2', description: 'Team handbook' });
    const patch = await call(platform, `/v1/libraries/${lib.id}`, { method: 'PATCH', body: { description: null } });
    expect(patch.json).toMatchObject({ name: 'Handbook 2', description: null });
    expect(patch.json.updated_at > lib.updated_at).toBe(true);

    const mine = await newLibrary(platform, { name: 'Private notes', owner_type: 'User' });
    expect(mine.owner_type).toBe('User');
    expect(mine.owner_id).toBe(me.json.id);

    const list = await call(platform, '/v1/libraries?search=handbook');
    expect(list.status).toBe(200);
    expect(list.json.data.map((l: any) => l.id)).toEqual([lib.id]);
    expect(list.json.pagination).toMatchObject({ total_items: 1, current_page: 0, has_more: false });

    const del = await call(platform, `/v1/libraries/${lib.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.json.id).toBe(lib.id);
    expect((await call(platform, `/v1/libraries/${lib.id}`)).status).toBe(404);
  });

  it('pages the libraries list with page or page_token', async () => {
    const p = await startPlatform();
    try {
      for (const name of ['a', 'b', 'c']) await newLibrary(p, { name });
      const first = await call(p, '/v1/libraries?page_size=2');
      expect(first.json.data.map((l: any) => l.name)).toEqual(['c', 'b']);
      expect(first.json.pagination).toEqual({ total_items: 3, total_pages: 2, current_page: 0, page_size: 2, has_more: true });
      const next = await call(p, `/v1/libraries?page_size=2&page_token=${first.json.next_page_token}`);
      expect(next.json.data.map((l: any) => l.name)).toEqual(['a']);
      expect(next.json.pagination).toBeUndefined();
      expect(next.json.next_page_token).toBeNull();
      const second = await call(p, '/v1/libraries?page_size=2&page=1');
      expect(second.json.data.map((l: any) => l.name)).toEqual(['a']);
      expect((await call(p, '/v1/libraries?page_token=bogus')).status).toBe(422);
    } finally {
      await p.close();
    }
  });

  it('rejects bad input with 422 and unknown ids with 404', async () => {
    const lib = await newLibrary(platform);
    const bad = [
      await call(platform, '/v1/libraries', { body: {} }),
      await call(platform, '/v1/libraries', { body: { name: '   ' } }),
      await call(platform, '/v1/libraries', { body: { name: 'x', chunk_size: 10 } }),
      await call(platform, '/v1/libraries', { body: { name: 'x', owner_type: 'Team' } }),
      await call(platform, `/v1/libraries/${lib.id}`, { method: 'PUT', body: { name: 5 } }),
      await call(platform, '/v1/libraries/not-a-uuid'),
      await call(platform, '/v1/libraries?page_size=1000'),
      await call(platform, `/v1/libraries/${lib.id}/documents?sort_by=colour`),
      await call(platform, `/v1/libraries/${lib.id}/documents?sort_order=up`),
      await call(platform, `/v1/libraries/${lib.id}/documents?filters_attributes=%7Bnope`),
      await call(platform, `/v1/libraries/${lib.id}/documents/${UNKNOWN.slice(0, 8)}`),
    ];
    for (const res of bad) {
      expect(res.status).toBe(422);
      expect(Array.isArray(res.json.detail)).toBe(true);
    }
    expect(bad[5].json.detail[0].loc).toEqual(['path', 'library_id']);
    expect(bad[2].json.detail[0].loc).toEqual(['body', 'chunk_size']);

    for (const path of [`/v1/libraries/${UNKNOWN}`, `/v1/libraries/${UNKNOWN}/documents`, `/v1/libraries/${lib.id}/documents/${UNKNOWN}`,
      `/v1/libraries/${lib.id}/documents/${UNKNOWN}/status`, `/v1/libraries/${lib.id}/documents/${UNKNOWN}/text_content`, `/v1/libraries/${UNKNOWN}/share`]) {
      const res = await call(platform, path);
      expect(res.status, path).toBe(404);
      expect(res.json).toMatchObject({ object: 'error', code: 'not_found' });
    }
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${UNKNOWN}`, { method: 'DELETE' })).status).toBe(404);
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${UNKNOWN}/reprocess`, { method: 'POST' })).status).toBe(404);

    const notMultipart = await call(platform, `/v1/libraries/${lib.id}/documents`, { body: { file: 'x' } });
    expect(notMultipart.status).toBe(415);
    const empty = await upload(platform, lib.id, '', 'empty.txt');
    expect(empty.status).toBe(422);
    const binary = await upload(platform, lib.id, new Uint8Array([0, 1, 2, 255, 254, 0]), 'blob.bin');
    expect(binary.status).toBe(422);
    expect(binary.json.detail[0].msg).toMatch(/Unsupported document/);
    const noFile = new FormData();
    noFile.append('other', 'x');
    const missing = await call(platform, `/v1/libraries/${lib.id}/documents`, { method: 'POST', rawBody: noFile });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'missing' });
  });
});

describe('documents', () => {
  it('processes a text file in the background: status, summary, tokens, text content, counters', async () => {
    const lib = await newLibrary(platform, { name: 'Notes' });
    const res = await upload(platform, lib.id, NOTES, 'notes.txt', 'text/plain');
    expect(res.status).toBe(201);
    const doc = res.json;
    expect(doc).toMatchObject({ library_id: lib.id, name: 'notes.txt', extension: 'txt', mime_type: 'text/plain', size: Buffer.byteLength(NOTES), uploaded_by_type: 'User' });
    expect(['todo', 'in_progress', 'done']).toContain(doc.process_status);
    expect(doc.hash).toMatch(/^[0-9a-f]{64}$/);

    expect(await processed(platform, lib.id, doc.id)).toEqual({ document_id: doc.id, process_status: 'done', processing_status: 'Completed' });
    const done = (await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}`)).json;
    expect(done.number_of_pages).toBe(1);
    expect(done.summary).toBe('Parley keeps documents offline. The local platform extracts their text! Then it embeds chunks. Second paragraph about llamas.');
    expect(done.tokens_processing_main_content).toBeGreaterThan(15);
    expect(done.tokens_processing_total).toBe(done.tokens_processing_main_content + done.tokens_processing_summary);
    expect(done.last_processed_at).toMatch(ISO_Z);

    const text = await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}/text_content`);
    expect(text.status).toBe(200);
    expect(text.json).toEqual({ text: NOTES });

    const counted = (await call(platform, `/v1/libraries/${lib.id}`)).json;
    expect(counted).toMatchObject({ nb_documents: 1, total_size: Buffer.byteLength(NOTES) });
  });

  it('strips HTML tags and reads a PDF text layer through OCR, page by page', async () => {
    const lib = await newLibrary(platform, { name: 'Mixed' });
    const html = await upload(platform, lib.id, '<html><head><style>p{}</style></head><body><h1>Title</h1><p>Fish &amp; chips<br>daily</p><script>alert(1)</script></body></html>', 'menu.html');
    expect(html.json.mime_type).toBe('text/html');
    await processed(platform, lib.id, html.json.id);
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${html.json.id}/text_content`)).json.text).toBe('Title\n\nFish & chips\ndaily');

    const pdf = await upload(platform, lib.id, await textLayerPdf(2), 'report.pdf', 'application/pdf');
    expect(pdf.status).toBe(201);
    expect(pdf.json).toMatchObject({ mime_type: 'application/pdf', extension: 'pdf' });
    expect((await processed(platform, lib.id, pdf.json.id)).process_status).toBe('done');
    const doc = (await call(platform, `/v1/libraries/${lib.id}/documents/${pdf.json.id}`)).json;
    expect(doc.number_of_pages).toBe(2);
    expect(doc.summary).toContain(`${HEADING} 0`);
    const all = (await call(platform, `/v1/libraries/${lib.id}/documents/${pdf.json.id}/text_content`)).json.text;
    expect(all).toContain(`# ${HEADING} 0`);
    expect(all).toContain(`# ${HEADING} 1`);
    expect(all).toContain(PARAGRAPHS[0]);
    const second = (await call(platform, `/v1/libraries/${lib.id}/documents/${pdf.json.id}/text_content?page_start=1&page_end=2`)).json.text;
    expect(second).toContain(`# ${HEADING} 1`);
    expect(second).not.toContain(`# ${HEADING} 0`);
  });

  it('fails processing of a corrupt PDF and explains why in text_content', async () => {
    const lib = await newLibrary(platform, { name: 'Broken' });
    const res = await upload(platform, lib.id, '%PDF-1.7\nthis is not really a pdf', 'broken.pdf');
    expect(res.status).toBe(201);
    expect(await processed(platform, lib.id, res.json.id)).toMatchObject({ process_status: 'error', processing_status: 'Failed' });
    const text = await call(platform, `/v1/libraries/${lib.id}/documents/${res.json.id}/text_content`);
    expect(text.status).toBe(409);
    expect(text.json).toMatchObject({ object: 'error', code: 'document_processing_failed' });
  });

  it('answers a duplicate upload with 200 and the existing document', async () => {
    const lib = await newLibrary(platform, { name: 'Dupes' });
    const first = await upload(platform, lib.id, 'same content', 'a.md');
    const again = await upload(platform, lib.id, 'same content', 'b.md');
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    expect(again.json.name).toBe('a.md');
    const other = await newLibrary(platform, { name: 'Other' });
    expect((await upload(platform, other.id, 'same content', 'a.md')).status).toBe(201);
    expect((await call(platform, `/v1/libraries/${lib.id}`)).json.nb_documents).toBe(1);
  });

  it('reprocesses a document', async () => {
    const lib = await newLibrary(platform, { name: 'Again' });
    const { json: doc } = await upload(platform, lib.id, 'Reprocess me. Please.', 'r.txt');
    const first = (await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}`)).json;
    await processed(platform, lib.id, doc.id);
    const before = (await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}`)).json.last_processed_at;
    const res = await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}/reprocess`, { method: 'POST' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    await processed(platform, lib.id, doc.id);
    const after = (await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}`)).json;
    expect(after.last_processed_at > before).toBe(true);
    expect(after.created_at).toBe(first.created_at);
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}/text_content`)).json.text).toBe('Reprocess me. Please.');
  });

  it('updates name, attributes and expiry; filters, searches, sorts and pages the list; deletes', async () => {
    const lib = await newLibrary(platform, { name: 'Listing' });
    const ids: string[] = [];
    for (const [name, content] of [['alpha.txt', 'aaaa'], ['beta.txt', 'b'], ['gamma.txt', 'ggggggg']]) ids.push((await upload(platform, lib.id, content, name)).json.id);
    const upd = await call(platform, `/v1/libraries/${lib.id}/documents/${ids[0]}`, { method: 'PUT', body: { name: 'alpha-renamed.txt', attributes: { team: 'core', year: 2024 } } });
    expect(upd.status).toBe(200);
    expect(upd.json).toMatchObject({ name: 'alpha-renamed.txt', attributes: { team: 'core', year: 2024 } });
    await call(platform, `/v1/libraries/${lib.id}/documents/${ids[1]}`, { method: 'PATCH', body: { attributes: { team: 'ops' } } });
    const badUpdate = await call(platform, `/v1/libraries/${lib.id}/documents/${ids[1]}`, { method: 'PATCH', body: { expires_at: 'tomorrow' } });
    expect(badUpdate.status).toBe(422);

    const names = async (query: string) => (await call(platform, `/v1/libraries/${lib.id}/documents?${query}`)).json.data.map((d: any) => d.name);
    expect(await names('')).toEqual(['gamma.txt', 'beta.txt', 'alpha-renamed.txt']);
    expect(await names('sort_by=name&sort_order=asc')).toEqual(['alpha-renamed.txt', 'beta.txt', 'gamma.txt']);
    expect(await names('sort_by=size&sort_order=desc')).toEqual(['gamma.txt', 'alpha-renamed.txt', 'beta.txt']);
    expect(await names('search=ALPHA')).toEqual(['alpha-renamed.txt']);
    expect(await names(`filters_attributes=${encodeURIComponent(JSON.stringify({ team: 'core' }))}`)).toEqual(['alpha-renamed.txt']);
    expect(await names(`filters_attributes=${encodeURIComponent(JSON.stringify({ team: ['core', 'ops'] }))}`)).toEqual(['beta.txt', 'alpha-renamed.txt']);
    const paged = await call(platform, `/v1/libraries/${lib.id}/documents?page_size=2&page=1`);
    expect(paged.json.data.map((d: any) => d.name)).toEqual(['alpha-renamed.txt']);
    expect(paged.json.pagination).toEqual({ total_items: 3, total_pages: 2, current_page: 1, page_size: 2, has_more: false });

    const expired = await call(platform, `/v1/libraries/${lib.id}/documents/${ids[2]}`, { method: 'PATCH', body: { expires_at: '2001-01-01T00:00:00Z' } });
    expect(expired.status).toBe(200);
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${ids[2]}`)).status).toBe(404);

    const del = await call(platform, `/v1/libraries/${lib.id}/documents/${ids[1]}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(await names('')).toEqual(['alpha-renamed.txt']);
    expect((await call(platform, `/v1/libraries/${lib.id}`)).json).toMatchObject({ nb_documents: 1, total_size: 4 });
  });

  it('serves signed URLs without a key and refuses forged or retargeted ones', async () => {
    const lib = await newLibrary(platform, { name: 'Signed' });
    const { json: doc } = await upload(platform, lib.id, 'Signed content here.', 'signed.txt', 'text/plain');
    await processed(platform, lib.id, doc.id);
    const other = (await upload(platform, lib.id, 'Another one.', 'other.txt')).json;

    const url = await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}/signed-url`);
    expect(url.status).toBe(200);
    expect(typeof url.json).toBe('string');
    const signed = new URL(url.json);
    expect(signed.origin).toBe(BASE);
    const path = signed.pathname + signed.search;
    const content = await call(platform, path, { key: null });
    expect(content.status).toBe(200);
    expect(content.text).toBe('Signed content here.');
    expect(content.headers.get('content-type')).toBe('text/plain');

    const textUrl = new URL((await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}/extracted-text-signed-url`)).json);
    const text = await call(platform, textUrl.pathname + textUrl.search, { key: null });
    expect(text.status).toBe(200);
    expect(text.text).toBe('Signed content here.');

    const forged = new URL(signed);
    forged.searchParams.set('signature', '0'.repeat(64));
    expect((await call(platform, forged.pathname + forged.search, { key: null })).status).toBe(403);
    const extended = new URL(signed);
    extended.searchParams.set('expires', String(Number(signed.searchParams.get('expires')) + 3600));
    expect((await call(platform, extended.pathname + extended.search, { key: null })).status).toBe(403);
    const retargeted = `${signed.pathname.replace(doc.id, other.id)}${signed.search}`;
    expect((await call(platform, retargeted, { key: null })).status).toBe(403);
    const asText = `${signed.pathname.replace('/content', '/extracted-text')}${signed.search}`;
    expect((await call(platform, asText, { key: null })).status).toBe(403);
    expect((await call(platform, signed.pathname, { key: null })).status).toBe(403);
  });
});

describe('sharing', () => {
  it('enforces access for a member: private library hidden, Viewer reads, Editor writes, only the owner shares', async () => {
    const lib = await newLibrary(platform, { name: 'Secret', owner_type: 'User' });
    const { json: doc } = await upload(platform, lib.id, 'Top secret plans.', 'plans.txt');
    const member = (await call(platform, '/v1/users/me', { key: MEMBER_KEY })).json;
    const owner = (await call(platform, '/v1/users/me')).json;

    expect((await call(platform, `/v1/libraries/${lib.id}`, { key: MEMBER_KEY })).status).toBe(404);
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}`, { key: MEMBER_KEY })).status).toBe(404);
    expect((await call(platform, '/v1/libraries', { key: MEMBER_KEY })).json.data.map((l: any) => l.id)).not.toContain(lib.id);

    const share = await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'PUT', body: { level: 'Viewer', share_with_uuid: member.id, share_with_type: 'User' } });
    expect(share.status).toBe(200);
    expect(share.json).toEqual({ library_id: lib.id, user_id: member.id, org_id: owner.organization.id, role: 'Viewer', share_with_type: 'User', share_with_uuid: member.id });
    expect((await call(platform, `/v1/libraries/${lib.id}`, { key: MEMBER_KEY })).status).toBe(200);
    expect((await call(platform, '/v1/libraries', { key: MEMBER_KEY })).json.data.map((l: any) => l.id)).toContain(lib.id);
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}`, { key: MEMBER_KEY })).status).toBe(200);
    const viewerUpload = await upload(platform, lib.id, 'member text', 'm.txt', 'text/plain', MEMBER_KEY);
    expect(viewerUpload.status).toBe(403);
    expect(viewerUpload.json).toMatchObject({ object: 'error', code: 'forbidden' });
    expect((await call(platform, `/v1/libraries/${lib.id}/documents/${doc.id}`, { method: 'DELETE', key: MEMBER_KEY })).status).toBe(403);
    expect((await call(platform, `/v1/libraries/${lib.id}`, { method: 'PUT', body: { name: 'mine' }, key: MEMBER_KEY })).status).toBe(403);

    await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'PUT', body: { level: 'Editor', share_with_uuid: member.id, share_with_type: 'User' } });
    expect((await upload(platform, lib.id, 'member text', 'm.txt', 'text/plain', MEMBER_KEY)).status).toBe(201);
    expect((await call(platform, `/v1/libraries/${lib.id}`, { method: 'DELETE', key: MEMBER_KEY })).status).toBe(403);
    const memberShares = await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'PUT', body: { level: 'Editor', share_with_uuid: owner.organization.id, share_with_type: 'Org' }, key: MEMBER_KEY });
    expect(memberShares.status).toBe(403);

    const list = await call(platform, `/v1/libraries/${lib.id}/share`, { key: MEMBER_KEY });
    expect(list.json.data.map((s: any) => [s.share_with_type, s.share_with_uuid, s.role])).toEqual([['User', owner.id, 'Owner'], ['User', member.id, 'Editor']]);
    expect((await call(platform, `/v1/libraries/${lib.id}`)).json.explicit_user_members_count).toBe(1);

    const removed = await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'DELETE', body: { share_with_uuid: member.id, share_with_type: 'User' } });
    expect(removed.status).toBe(200);
    expect(removed.json.role).toBe('Editor');
    expect((await call(platform, `/v1/libraries/${lib.id}`, { key: MEMBER_KEY })).status).toBe(404);
    expect((await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'DELETE', body: { share_with_uuid: member.id, share_with_type: 'User' } })).status).toBe(404);
  });

  it('shares with the workspace and the organization; workspace libraries are shared from the start', async () => {
    const me = (await call(platform, '/v1/users/me')).json;
    const team = await newLibrary(platform, { name: 'Team space' });
    expect((await call(platform, `/v1/libraries/${team.id}/share`)).json.data).toContainEqual(expect.objectContaining({ share_with_type: 'Workspace', share_with_uuid: me.workspace.id, role: 'Editor' }));
    expect((await upload(platform, team.id, 'team note', 'team.txt', 'text/plain', MEMBER_KEY)).status).toBe(201);

    const lib = await newLibrary(platform, { name: 'Org wide', owner_type: 'User' });
    const org = await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'PUT', body: { level: 'Viewer', share_with_uuid: me.organization.id, share_with_type: 'Org' } });
    expect(org.status).toBe(200);
    expect(org.json.user_id).toBeNull();
    expect((await call(platform, `/v1/libraries/${lib.id}`, { key: MEMBER_KEY })).json.org_sharing_role).toBe('Viewer');
    // A member may remove only their own access; they have none here, and may not remove the org entry.
    expect((await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'DELETE', body: { share_with_uuid: me.organization.id, share_with_type: 'Org' }, key: MEMBER_KEY })).status).toBe(403);
  });

  it('rejects shares outside the organization, bad levels and changes to the owner entry', async () => {
    const me = (await call(platform, '/v1/users/me')).json;
    const lib = await newLibrary(platform, { name: 'Guarded', owner_type: 'User' });
    const put = (body: unknown) => call(platform, `/v1/libraries/${lib.id}/share`, { method: 'PUT', body });
    for (const body of [
      { level: 'Admin', share_with_uuid: me.id, share_with_type: 'User' },
      { level: 'Viewer', share_with_uuid: me.id, share_with_type: 'Team' },
      { level: 'Viewer', share_with_type: 'User' },
      { level: 'Viewer', share_with_uuid: UNKNOWN, share_with_type: 'User' },
      { level: 'Viewer', share_with_uuid: UNKNOWN, share_with_type: 'Workspace' },
      { level: 'Viewer', share_with_uuid: UNKNOWN, share_with_type: 'Org' },
      { level: 'Viewer', share_with_uuid: me.id, share_with_type: 'User' },
    ]) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(res.json.detail)).toBe(true);
    }
    const ownDelete = await call(platform, `/v1/libraries/${lib.id}/share`, { method: 'DELETE', body: { share_with_uuid: me.id, share_with_type: 'User' } });
    expect(ownDelete.status).toBe(422);
  });
});

describe('durability', () => {
  it('keeps libraries, documents, text and shares across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-libraries-'));
    try {
      let p = await startPlatform({ dataDir });
      const lib = await newLibrary(p, { name: 'Durable', owner_type: 'User' });
      const { json: doc } = await upload(p, lib.id, 'Durable words stay.', 'd.txt');
      await processed(p, lib.id, doc.id);
      const orgId = (await call(p, '/v1/users/me')).json.organization.id;
      await call(p, `/v1/libraries/${lib.id}/share`, { method: 'PUT', body: { level: 'Viewer', share_with_uuid: orgId, share_with_type: 'Org' } });
      // Three PDFs queued at once: processing runs one at a time, so the last is still waiting when the platform closes.
      const pdfs = [];
      for (let n = 1; n <= 3; n++) pdfs.push((await upload(p, lib.id, await textLayerPdf(n), `r${n}.pdf`)).json);
      const queued = (await upload(p, lib.id, 'Queued before the restart.', 'q.txt')).json;
      expect((await call(p, `/v1/libraries/${lib.id}/documents/${queued.id}/status`)).json.process_status).toBe('todo');
      await p.close();

      p = await startPlatform({ dataDir });
      expect((await call(p, `/v1/libraries/${lib.id}`)).json).toMatchObject({ name: 'Durable', nb_documents: 5 });
      expect((await call(p, `/v1/libraries/${lib.id}/documents/${doc.id}/text_content`)).json.text).toBe('Durable words stay.');
      expect((await processed(p, lib.id, queued.id)).process_status).toBe('done');
      for (const pdf of pdfs) expect((await processed(p, lib.id, pdf.id)).process_status).toBe('done');
      expect((await call(p, `/v1/libraries/${lib.id}/documents/${pdfs[2].id}`)).json.number_of_pages).toBe(3);
      const url = new URL((await call(p, `/v1/libraries/${lib.id}/documents/${doc.id}/signed-url`)).json);
      await p.close();

      p = await startPlatform({ dataDir });
      expect((await call(p, url.pathname + url.search, { key: null })).text).toBe('Durable words stay.');
      expect((await call(p, `/v1/libraries/${lib.id}/documents/${queued.id}/text_content`)).json.text).toBe('Queued before the restart.');
      expect((await call(p, `/v1/libraries/${lib.id}/share`)).json.data.map((e: any) => [e.share_with_type, e.role])).toEqual([['User', 'Owner'], ['Org', 'Viewer']]);
      await p.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
