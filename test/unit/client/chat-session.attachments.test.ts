// ChatSession with attachments: a message as content chunks (text, image_url, document_url) goes to the
// platform as they are, stays in the transcript, the store and the server's history, and comes back on load.
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Platform } from '@parley-kit/platform';
import { ChatSession } from '../../../src/client/chat-session.js';
import { HistoryStore } from '../../../src/store/history-store.js';
import { isBlankMessage, withText } from '../../../src/client/message-content.js';
import type { InputContentChunk } from '../../../src/client/types.js';
import { callPlatform, platformClient, startPlatform } from './helpers.js';
// @ts-expect-error -- a plain ES module of the platform's tests (pdfkit), shared with the OCR bench.
import { textLayerPdf } from '../../../platform/test/unit/ocr-fixtures.mjs';

let platform: Platform;
beforeAll(async () => { platform = await startPlatform(); });
afterAll(async () => { await platform.close(); });

// A 1×1 PNG and a one-page PDF with a text layer, as the composer sends them (the local model reads both:
// they must be a real image and a PDF that opens).
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PDF = `data:application/pdf;base64,${Buffer.from(await textLayerPdf()).toString('base64')}`;
const chunks: InputContentChunk[] = [
  { type: 'text', text: 'What do these say?' },
  { type: 'image_url', image_url: PNG },
  { type: 'document_url', document_url: PDF, document_name: 'invoice.pdf' },
];

let n = 0;
const chat = (store?: HistoryStore) => new ChatSession({ client: platformClient(platform), model: 'parley-local', store });
const userContent = (session: ChatSession) => {
  const entry = session.state.entries.find((e) => e.type === 'message.input' && e.role === 'user');
  return entry && entry.type === 'message.input' ? entry.content : undefined;
};

describe('ChatSession.send with content chunks', () => {
  test('the chunks reach the platform, stay in the transcript, the store and the server history, and come back on load', async () => {
    const store = await HistoryStore.open({ name: `attach-${++n}`, writeIntervalMs: 20 });
    const session = chat(store);
    await session.send(chunks);
    expect(session.state.status).toBe('ready');
    const id = session.state.conversationId!;
    expect(userContent(session)).toEqual(chunks);
    expect(session.state.entries.map((e) => e.type)).toEqual(['message.input', 'message.output']);

    const history = (await callPlatform(platform, `/v1/conversations/${id}/history`)).json.entries as Array<{ type: string; content: unknown }>;
    expect(history[0]!.content).toEqual(chunks);

    await store.flush();
    expect((await store.getEntries(id))[0]).toMatchObject({ content: chunks });
    expect((await store.listConversations())[0]).toMatchObject({ id, title: 'What do these say?' });

    // A reload: the store shows them at once; the server's history (no store at all) shows them too.
    const reloaded = chat(store);
    await reloaded.load(id);
    expect(userContent(reloaded)).toEqual(chunks);
    const elsewhere = chat();
    await elsewhere.load(id);
    expect(userContent(elsewhere)).toEqual(chunks);
    for (const s of [session, reloaded, elsewhere]) s.dispose();
    await store.close();
  });

  test('an image with no text is a message; blank text with no attachment sends nothing', async () => {
    const session = chat();
    await session.send([{ type: 'text', text: '   ' }]);
    expect(session.state.entries).toHaveLength(0);
    await session.send([{ type: 'image_url', image_url: PNG }]);
    expect(userContent(session)).toEqual([{ type: 'image_url', image_url: PNG }]);
    expect(session.state.status).toBe('ready');
    session.dispose();
  });

  test('the string API still sends a plain string', async () => {
    const session = chat();
    await session.send('Just words');
    expect(userContent(session)).toBe('Just words');
    session.dispose();
  });

  test('editing a message with attachments keeps them and changes its words', async () => {
    const session = chat();
    await session.send(chunks);
    await session.send('And then?');
    const first = session.state.entries[0]!;
    await session.edit(first.id, 'Only the total, please');
    expect(userContent(session)).toEqual([{ type: 'text', text: 'Only the total, please' }, chunks[1], chunks[2]]);
    const history = (await callPlatform(platform, `/v1/conversations/${session.state.conversationId}/history`)).json.entries as Array<{ content: unknown }>;
    expect(history[0]!.content).toEqual([{ type: 'text', text: 'Only the total, please' }, chunks[1], chunks[2]]);
    session.dispose();
  });
});

describe('message content helpers', () => {
  test('isBlankMessage', () => {
    expect(isBlankMessage('  ')).toBe(true);
    expect(isBlankMessage('x')).toBe(false);
    expect(isBlankMessage([])).toBe(true);
    expect(isBlankMessage([{ type: 'text', text: ' \n' }])).toBe(true);
    expect(isBlankMessage([{ type: 'image_url' }])).toBe(false);
  });

  test('withText replaces the words and keeps the attachments', () => {
    expect(withText('old', 'new')).toBe('new');
    expect(withText([{ type: 'text', text: 'old' }], 'new')).toBe('new');
    expect(withText(chunks, 'new')).toEqual([{ type: 'text', text: 'new' }, chunks[1], chunks[2]]);
  });
});
