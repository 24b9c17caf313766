/**
 * Attachments read by the local platform, end to end through the official SDK and raw HTTP: a photographed
 * receipt (the committed fixture the browser e2e uses too) gets its total quoted, an image of a sentence gets the
 * sentence quoted, a PDF gets the passage quoted with its page (conversations, streamed and not, and chat
 * completions), a signed file URL is read, and bad attachments get 4xx answers in the platform's shapes. A
 * conversation's reply cites what it quotes: `[1]` after the quote and a `tool_reference` chunk naming the page
 * (`page`, Parley's extra field, which the SDK drops and raw HTTP keeps); chat completions answer text only.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, stream } from './helpers.js';
import { drain, withSdkPlatform } from './sdk.js';
import { dataUrl, scannedPdf, textPng } from './ocr-fixtures.mjs';
import PDFDocument from 'pdfkit';

/** The receipt photo of test/fixtures/receipt (see its README): "TOTAL 42.50" among other lines. */
const RECEIPT = new Uint8Array(readFileSync(new URL('../../../test/fixtures/receipt/receipt.jpg', import.meta.url)));
/** The reply to "What is the total on this receipt?" with the receipt attached (the README and the e2e quote it). */
const RECEIPT_REPLY = 'Page 1 of your image says:\n\n> TOTAL 42.50 [1]\n\nI quoted the passages closest to your question: `parley-local` reads attachments and ranks their passages by the words they share with it, without interpreting them.';
/** The source it cites, as the platform sends it (`page` is Parley's field beyond the API's). */
const RECEIPT_SOURCE = { type: 'tool_reference', tool: 'attachment', title: 'Your image', url: null, description: 'TOTAL 42.50', page: 1 };
/** The same source as the official SDK parses it: the unknown `page` dropped. */
const { page: _page, ...RECEIPT_SOURCE_SDK } = RECEIPT_SOURCE;

/** The bytes of a letter-size PDF drawn by `draw` with pdfkit (text layers). */
function pdfOf(draw: (doc: InstanceType<typeof PDFDocument>) => void): Promise<Uint8Array> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 72 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Uint8Array>((resolve) => doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks)))));
  draw(doc);
  doc.end();
  return done;
}

/** A two-page text-layer PDF: shipping on page 1, returns on page 2. */
const policyPdf = () => pdfOf((doc) => {
  doc.font('Helvetica-Bold').fontSize(20).text('Shop policies');
  doc.font('Helvetica').fontSize(12).text('Shipping takes three working days. Parcels are sent from Lyon.');
  doc.addPage();
  doc.font('Helvetica').fontSize(12).text('Lamps must be unused and in their box. Returns are accepted within 30 days of delivery.');
});

/** A one-page invoice: a header, a table of items, subtotal, VAT and total in columns, a footnote. */
const invoicePdf = () => pdfOf((doc) => {
  doc.font('Helvetica-Bold').fontSize(20).text('INVOICE 2026-114');
  doc.font('Helvetica').fontSize(12).text('Bill to: Ada Lovelace, 4 Quay Road');
  let y = doc.y + 20;
  for (const [label, amount] of [['Desk lamp', '29.00'], ['Bulbs (2)', '7.50'], ['Subtotal', '36.50'], ['VAT', '6.00'], ['Total', '42.50']]) {
    doc.text(label, 72, y, { lineBreak: false });
    doc.text(amount, 400, y, { lineBreak: false });
    y += 18;
  }
  doc.text('Payment is due within 14 days.', 72, y + 24);
});

const t = withSdkPlatform({ maxOcrBytes: 2 * 1024 * 1024 });

const question = (text: string, ...chunks: object[]) => [{ role: 'user' as const, content: [{ type: 'text' as const, text }, ...chunks] as any }];
const imageChunk = (bytes: Uint8Array, type = 'image/jpeg') => ({ type: 'image_url', imageUrl: dataUrl(bytes, type) });

describe('the local engine reads attachments', () => {
  it('quotes the total of a photographed receipt (conversations, SDK), and a follow-up question from the same receipt', async () => {
    const res = await t.sdk.beta.conversations.start({ model: 'mistral-small-latest', inputs: question('What is the total on this receipt?', imageChunk(RECEIPT)) });
    const reply = res.outputs[0] as { type: string; content: any[] };
    expect(reply.type).toBe('message.output');
    // the SDK parses the reply with its source and drops the field it does not know (`page`)
    expect(reply.content).toEqual([{ type: 'text', text: RECEIPT_REPLY }, RECEIPT_SOURCE_SDK]);

    const again = await t.sdk.beta.conversations.append({ conversationId: res.conversationId, conversationAppendRequest: { inputs: 'And the VAT?' } });
    const vat = (again.outputs[0] as { content: any[] }).content;
    expect(vat[0].text).toMatch(/^Page 1 of your image says:\n\n> VAT 4\.00 \[1\]\n\n/);
    expect(vat.slice(1)).toEqual([{ ...RECEIPT_SOURCE_SDK, description: 'VAT 4.00' }]);
    // the history keeps the attachment as it was sent
    const history = await t.sdk.beta.conversations.getHistory({ conversationId: res.conversationId });
    expect((history.entries[0] as any).content[1]).toMatchObject({ type: 'image_url', imageUrl: dataUrl(RECEIPT, 'image/jpeg') });
  });

  it('quotes what an image says about returns (streamed), the same reply every time', async () => {
    const png = await textPng(['Opening hours: 9 to 18.', 'Returns are accepted within 30 days.']);
    const ask = async () => {
      const events = await drain(await t.sdk.beta.conversations.startStream({ model: 'parley-local', inputs: question('What does this image say about returns?', imageChunk(png, 'image/png')) }));
      expect(events.at(-1)!.data.type).toBe('conversation.response.done');
      const deltas = events.filter((e) => e.data.type === 'message.output.delta').map((e) => e.data as any);
      // the text, then the source as one more delta (content_index 1), parsed by the SDK
      expect(deltas.at(-1)).toMatchObject({ contentIndex: 1, content: { type: 'tool_reference', tool: 'attachment', title: 'Your image', description: 'Returns are accepted within 30 days.' } });
      return deltas.slice(0, -1).map((d) => d.content).join('');
    };
    const text = await ask();
    expect(text).toMatch(/^Page 1 of your image says:\n\n> Returns are accepted within 30 days\. \[1\]\n\n/);
    expect(text).not.toContain('cannot really answer');
    expect(await ask()).toBe(text);
  });

  it('quotes a PDF passage with its page and file name (chat completions, SDK)', async () => {
    const res = await t.sdk.chat.complete({
      model: 'mistral-small-latest',
      messages: question('How long do I have to return a lamp?', { type: 'document_url', documentUrl: dataUrl(await policyPdf()), documentName: 'policies.pdf' }),
    });
    // chat completions answer text only: no source numbers, no chunks
    expect(res.choices[0].message.content).toMatch(/^Page 2 of \*\*policies\.pdf\*\* says:\n\n> Returns are accepted within 30 days of delivery\.\n\n/);
  });

  it('cites the page of a PDF in the reply\'s tool_reference chunk, with its page (raw HTTP, JSON and streamed, history)', async () => {
    const inputs = [{ role: 'user', content: [
      { type: 'text', text: 'How long do I have to return a lamp?' },
      { type: 'document_url', document_url: dataUrl(await policyPdf()), document_name: 'policies.pdf' },
    ] }];
    const source = { type: 'tool_reference', tool: 'attachment', title: 'policies.pdf', url: null, description: 'Returns are accepted within 30 days of delivery.', page: 2 };
    const res = await call(t.platform, '/v1/conversations', { body: { model: 'parley-local', inputs } });
    expect(res.status).toBe(200);
    const [text, ...refs] = res.json.outputs[0].content;
    expect(text.text).toMatch(/^Page 2 of \*\*policies\.pdf\*\* says:\n\n> Returns are accepted within 30 days of delivery\. \[1\]\n\n/);
    expect(refs).toEqual([source]);
    const history = await call(t.platform, `/v1/conversations/${res.json.conversation_id}/history`);
    expect(history.json.entries[1].content).toEqual(res.json.outputs[0].content);

    const streamed = await stream(t.platform, '/v1/conversations', { model: 'parley-local', inputs });
    const deltas = streamed.events.filter((e) => e.event === 'message.output.delta').map((e) => e.data);
    const chunks = deltas.filter((d) => typeof d.content !== 'string');
    expect(chunks.map((d) => [d.content_index, d.content])).toEqual([[1, source]]);
    expect(deltas.filter((d) => typeof d.content === 'string').map((d) => d.content).join('')).toBe(text.text);
    expect(deltas.at(-1)).toBe(chunks[0]);
  });

  it('answers "What is the total on this invoice?" with the line that holds the total', async () => {
    const res = await t.sdk.beta.conversations.start({
      model: 'parley-local',
      inputs: question('What is the total on this invoice?', { type: 'document_url', documentUrl: dataUrl(await invoicePdf()), documentName: 'invoice-2026-114.pdf' }),
    });
    const [text, source] = (res.outputs[0] as { content: any[] }).content;
    expect(text.text).toMatch(/^Page 1 of \*\*invoice-2026-114\.pdf\*\* says:\n\n> Total 42\.50 \[1\]\n\n/);
    expect(source).toEqual({ type: 'tool_reference', tool: 'attachment', title: 'invoice-2026-114.pdf', url: null, description: 'Total 42.50' });
  });

  it('recognises a scanned PDF page (no text layer)', async () => {
    const res = await t.sdk.chat.complete({
      model: 'parley-local',
      messages: question('What is the total amount payable?', { type: 'document_url', documentUrl: dataUrl(await scannedPdf(1)) }),
    });
    expect(res.choices[0].message.content).toMatch(/^Page 1 of your PDF says:\n\n> Total amount payable: 42\.50 euros\.\n\n/);
  });

  it('reads an image given as a signed URL of the files API', async () => {
    const file = await t.sdk.files.upload({ file: new File([RECEIPT], 'receipt.jpg', { type: 'image/jpeg' }), purpose: 'ocr' });
    const { url } = await t.sdk.files.getSignedUrl({ fileId: file.id, expiry: 1 });
    const res = await t.sdk.chat.complete({ model: 'parley-local', messages: question('What is the total?', { type: 'image_url', imageUrl: url }) });
    expect(res.choices[0].message.content).toContain('> TOTAL 42.50\n');
    const forged = url.replace(/signature=[0-9a-f]{4}/, 'signature=0000');
    const refused = await call(t.platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: forged }] }] } });
    expect(refused.status).toBe(422);
    expect(refused.json.detail[0]).toMatchObject({ loc: ['body', 'messages', 0, 'content', 0, 'image_url'], msg: 'The URL signature is not valid' });
  });
});

describe('bad attachments get 4xx answers', () => {
  const start = (chunk: object, text = 'What does it say?') =>
    call(t.platform, '/v1/conversations', { body: { model: 'parley-local', inputs: [{ role: 'user', content: [{ type: 'text', text }, chunk] }] } });
  const loc = (field: string) => ['body', 'inputs', 0, 'content', 1, field];

  it('an undecodable or empty data URL', async () => {
    for (const url of ['data:image/png;base64,%%%not base64%%%', 'data:image/png,plain', 'data:image/png;base64,']) {
      const res = await start({ type: 'image_url', image_url: url });
      expect(res.status, url).toBe(422);
      expect(res.json.detail[0].loc).toEqual(loc('image_url'));
    }
  });

  it('bytes of the wrong type: not an image or PDF, a PDF as image_url, an image as document_url, a data URL that says otherwise', async () => {
    const png = await textPng(['Hello']);
    const cases: Array<[object, string, RegExp]> = [
      [{ type: 'image_url', image_url: dataUrl(new TextEncoder().encode('just text'), 'image/png') }, 'image_url', /neither an image .* nor a PDF/],
      [{ type: 'image_url', image_url: { url: dataUrl(await policyPdf()) } }, 'image_url', /image_url chunk holds a PDF/],
      [{ type: 'document_url', document_url: dataUrl(png, 'image/png') }, 'document_url', /document_url chunk holds an image/],
      [{ type: 'image_url', image_url: dataUrl(png, 'application/pdf') }, 'image_url', /says application\/pdf but its bytes are an image/],
      [{ type: 'image_url', image_url: 'https://example.com/cat.png' }, 'image_url', /no host is allowed/],
    ];
    for (const [chunk, field, msg] of cases) {
      const res = await start(chunk);
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.detail[0].loc).toEqual(loc(field));
      expect(res.json.detail[0].msg).toMatch(msg);
    }
  });

  it('a PDF that is not a PDF', async () => {
    const notPdf = await start({ type: 'document_url', document_url: dataUrl(new TextEncoder().encode('Dear customer, …')) });
    expect(notPdf.status).toBe(422);
    const broken = await start({ type: 'document_url', document_url: dataUrl(new TextEncoder().encode('%PDF-1.7\nthis is not really a PDF\n%%EOF')) });
    expect(broken.status).toBe(422);
    expect(broken.json.detail[0].loc).toEqual(loc('document_url'));
  });

  it('too big, and too many', async () => {
    const big = new Uint8Array(3 * 1024 * 1024);
    big.set(RECEIPT);
    const res = await start({ type: 'document_url', document_url: dataUrl(big, 'application/pdf') });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'request_too_large' });
    expect(res.json.message).toMatch(/larger than the limit of 2097152 bytes \(2 MB\)/);
    const many = Array.from({ length: 9 }, () => ({ type: 'image_url', image_url: dataUrl(RECEIPT, 'image/jpeg') }));
    const tooMany = await call(t.platform, '/v1/chat/completions', { body: { model: 'parley-local', messages: [{ role: 'user', content: many }] } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json.detail[0]).toMatchObject({ loc: ['body', 'messages', 0, 'content'], msg: 'A message may have at most 8 attachments; this one has 9' });
  });

  it('nothing is stored when an attachment is refused', async () => {
    const count = async () => {
      const list = await call(t.platform, '/v1/conversations?page_size=1000');
      expect(Array.isArray(list.json)).toBe(true);
      return list.json.length as number;
    };
    const before = await count();
    expect((await start({ type: 'image_url', image_url: 'data:image/png;base64,AAAA' })).status).toBe(422);
    expect(await start({ type: 'image_url', image_url: dataUrl(RECEIPT, 'image/jpeg') }, 'What is the total?')).toMatchObject({ status: 200 });
    expect(await count()).toBe(before + 1);
  });
});
