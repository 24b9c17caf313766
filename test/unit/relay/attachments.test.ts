// Attachments in conversation bodies: the relay's policy (count, bytes each and in all, types), each data:
// URL's bytes judged against its declared type, clear 4xx refusals, and a body too big refused as it streams.
import { describe, expect, it } from 'vitest';
import { api, fakeUpstream, json, makeRelay, openSession, within } from './helpers.js';
import type { RelayOptions } from '../../../src/relay/index.js';
import { DEFAULT_BODY_LIMITS } from '../../../src/relay/proxy/route-table.js';
import { attachmentLimitsOf, checkAttachments, DEFAULT_ATTACHMENT_LIMITS } from '../../../src/relay/uploads/attachments.js';
import { resolveRelayConfig, relayOptionsOf } from '../../../src/relay/config.js';

const MB = 1024 * 1024;
const encoder = new TextEncoder();
const bytes = (...parts: Array<string | number[]>) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));
const b64 = (data: Uint8Array) => Buffer.from(data).toString('base64');

const PNG = bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR', [0, 0, 0, 1, 0, 0, 0, 1]);
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], 'JFIF', [0]);
const PDF = encoder.encode('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n');
const HTML = encoder.encode('<!DOCTYPE html><script>alert(1)</script>');

const dataUrl = (type: string, data: Uint8Array) => `data:${type};base64,${b64(data)}`;
const image = (url: string) => ({ type: 'image_url', image_url: url });
const document = (url: string, name = 'a.pdf') => ({ type: 'document_url', document_url: url, document_name: name });
const message = (...chunks: unknown[]) => ({ agent_id: 'ag_1', inputs: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, ...chunks] }] });

async function setup(options: Partial<RelayOptions> = {}) {
  const bodies: string[] = [];
  const upstream = fakeUpstream(async (req) => {
    bodies.push(await req.text());
    return json({ conversation_id: 'conv_1', outputs: [] });
  });
  const relay = makeRelay(upstream.fetch, options);
  const { token } = await openSession(relay);
  const start = (body: unknown) => api(relay, '/v1/conversations', { token, body });
  return { upstream, bodies, relay, token, start };
}

async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  const body = await res.json() as { message: string };
  expect(body).toMatchObject({ object: 'error', type: 'invalid_request_error', code });
  return body.message;
}

describe('attachments the policy allows', () => {
  it('an image (string or {url}) and a PDF reach the platform unchanged, hostile file names included', async () => {
    const { start, bodies } = await setup();
    const name = '<img src=x onerror=alert(1)>\u202Efdp.exe\u0000' + 'n'.repeat(10_000);
    const body = message(image(dataUrl('image/png', PNG)), { type: 'image_url', image_url: { url: dataUrl('image/jpeg', JPEG) } }, document(dataUrl('application/pdf', PDF), name));
    expect((await start(body)).status).toBe(200);
    expect(JSON.parse(bodies[0]!)).toEqual(body);
  });

  it('append and restart bodies are checked too', async () => {
    const { relay, token, start } = await setup();
    expect((await start({ agent_id: 'ag_1', inputs: 'hi' })).status).toBe(200);
    const bad = message(image(dataUrl('image/png', HTML)));
    await expectError(await api(relay, '/v1/conversations/conv_1', { token, body: { inputs: bad.inputs } }), 415, 'unsupported_file_type');
    await expectError(await api(relay, '/v1/conversations/conv_1/restart', { token, body: { from_entry_id: 'e1', inputs: bad.inputs } }), 415, 'unsupported_file_type');
  });
});

describe('the bytes against the declared type (415)', () => {
  it.each([
    ['HTML declared image/png', image(dataUrl('image/png', HTML))],
    ['a JPEG declared image/png', image(dataUrl('image/png', JPEG))],
    ['a PDF in image_url', image(dataUrl('application/pdf', PDF))],
    ['a PNG in document_url', document(dataUrl('image/png', PNG))],
    ['HTML declared application/pdf', document(dataUrl('application/pdf', HTML))],
    ['a type the policy does not allow (SVG)', image(dataUrl('image/svg+xml', encoder.encode('<svg onload="alert(1)"/>')))],
    ['no declared type', image(`data:;base64,${b64(PNG)}`)],
  ])('%s → 415 unsupported_file_type, no upstream call', async (_, chunk) => {
    const { start, upstream } = await setup();
    await expectError(await start(message(chunk)), 415, 'unsupported_file_type');
    expect(upstream.calls).toHaveLength(0);
  });

  it('a type left out of the policy is refused even when the bytes are right', async () => {
    const { start } = await setup({ attachments: { types: ['image/png'] } });
    expect((await start(message(image(dataUrl('image/png', PNG))))).status).toBe(200);
    const text = await expectError(await start(message(document(dataUrl('application/pdf', PDF)))), 415, 'unsupported_file_type');
    expect(text).toContain('image/png');
  });
});

describe('count and size (413)', () => {
  it('one attachment more than maxCount → 413 too_many_attachments naming the limit', async () => {
    const { start, upstream } = await setup();
    const png = image(dataUrl('image/png', PNG));
    expect((await start(message(png, png, png, png))).status).toBe(200);
    const text = await expectError(await start(message(png, png, png, png, png)), 413, 'too_many_attachments');
    expect(text).toContain('4');
    expect(upstream.calls).toHaveLength(1);
  });

  it('maxCount 0 refuses any attachment, text still passes', async () => {
    const { start } = await setup({ attachments: { maxCount: 0 } });
    expect((await start({ agent_id: 'ag_1', inputs: 'hi' })).status).toBe(200);
    await expectError(await start(message(image(dataUrl('image/png', PNG)))), 413, 'too_many_attachments');
  });

  it('an attachment over maxBytes (decoded) → 413 attachment_too_large naming its size and the limit', async () => {
    const { start } = await setup({ attachments: { maxBytes: 2 * MB } });
    const big = new Uint8Array(3 * MB + MB / 2);
    big.set(PNG);
    const text = await expectError(await start(message(image(dataUrl('image/png', big)))), 413, 'attachment_too_large');
    expect(text).toBe('An attachment is 3.5 MB; the limit is 2 MB');
    const fits = new Uint8Array(2 * MB);
    fits.set(PNG);
    expect((await start(message(image(dataUrl('image/png', fits))))).status).toBe(200);
  });

  it('attachments over maxTotalBytes in all → 413 attachments_too_large (the body cap set wider by the host)', async () => {
    const { start } = await setup({ attachments: { maxBytes: 2 * MB, maxTotalBytes: 3 * MB }, bodyLimits: { conversations: 20 * MB } });
    const file = new Uint8Array(2 * MB);
    file.set(PNG);
    const chunk = image(dataUrl('image/png', file));
    expect((await start(message(chunk))).status).toBe(200);
    await expectError(await start(message(chunk, chunk)), 413, 'attachments_too_large');
  });
});

describe('malformed and remote attachments', () => {
  it.each([
    ['not base64 (percent-encoded)', image('data:image/png,%89PNG')],
    ['invalid base64', image('data:image/png;base64,%%%%')],
    ['base64 of a wrong length', image('data:image/png;base64,iVBORw0KGgo')],
    ['no URL', { type: 'image_url' }],
    ['a number for a URL', document(42 as unknown as string)],
    ['a javascript: URL', image('javascript:alert(1)')],
    ['a file: URL', document('file:///etc/passwd')],
    ['a header of 300 characters', image(`data:image/png;${'x'.repeat(300)};base64,${b64(PNG)}`)],
  ])('%s → 400 invalid_attachment', async (_, chunk) => {
    const { start, upstream } = await setup();
    await expectError(await start(message(chunk)), 400, 'invalid_attachment');
    expect(upstream.calls).toHaveLength(0);
  });

  it('an http(s) URL the platform would fetch → 403 remote_file_not_allowed, unless remote files are allowed', async () => {
    const { start } = await setup();
    await expectError(await start(message(image('https://example.com/a.png'))), 403, 'remote_file_not_allowed');
    await expectError(await start(message(document('http://127.0.0.1:6379/'))), 403, 'remote_file_not_allowed');
    const open = await setup({ allowRemoteFiles: true });
    expect((await open.start(message(image('https://example.com/a.png')))).status).toBe(200);
  });

  it('chat-completion bodies (messages) are checked by the same function', () => {
    const limits = attachmentLimitsOf();
    const body = { model: 'm', messages: [{ role: 'user', content: [image(dataUrl('image/png', HTML))] }] };
    expect(() => checkAttachments(body, limits, { allowRemoteFiles: false })).toThrow(/declared image\/png/);
    expect(() => checkAttachments({ model: 'm', messages: [{ role: 'user', content: [image(dataUrl('image/png', PNG))] }] }, limits, { allowRemoteFiles: false })).not.toThrow();
  });
});

describe('large bodies', () => {
  it('the default conversation cap is 1 MB plus the base64 size of 20 MB of attachments', () => {
    expect(DEFAULT_ATTACHMENT_LIMITS).toMatchObject({ maxCount: 4, maxBytes: 10 * MB, maxTotalBytes: 20 * MB });
    expect(DEFAULT_BODY_LIMITS.conversations).toBe(MB + Math.ceil((20 * MB) / 3) * 4);
  });

  it('a 30 MB body declared in Content-Length → 413 before a byte is read, no upstream call', async () => {
    const { relay, token, upstream } = await setup();
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({ pull(c) { pulled += 64 * 1024; c.enqueue(new Uint8Array(64 * 1024).fill(0x20)); } });
    const res = await api(relay, '/v1/conversations', { token, rawBody: stream, headers: { 'content-type': 'application/json', 'content-length': String(30 * MB) } });
    await expectError(res, 413, 'request_too_large');
    expect(pulled).toBeLessThanOrEqual(2 * 64 * 1024);
    expect(upstream.calls).toHaveLength(0);
  });

  it('a chunked 30 MB body → 413 once the cap is passed; the rest is never read', async () => {
    const { relay, token, upstream } = await setup();
    const chunk = 256 * 1024;
    let sent = 0;
    let cancelled!: () => void;
    const wasCancelled = new Promise<void>((r) => { cancelled = r; });
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= 30 * MB) return c.close();
        sent += chunk;
        c.enqueue(new Uint8Array(chunk).fill(0x20));
      },
      cancel() { cancelled(); },
    });
    const res = await api(relay, '/v1/conversations', { token, rawBody: stream, headers: { 'content-type': 'application/json' } });
    await expectError(res, 413, 'request_too_large');
    await within(wasCancelled, 5_000, 'request body cancel');
    expect(sent).toBeLessThan(30 * MB);
    expect(sent).toBeLessThanOrEqual(DEFAULT_BODY_LIMITS.conversations + 2 * chunk);
    expect(upstream.calls).toHaveLength(0);
  });

  it('text beside the attachments is held to 1 MB', async () => {
    const { start } = await setup();
    const png = new Uint8Array(5 * MB);
    png.set(PNG);
    expect((await start({ ...message(image(dataUrl('image/png', png))), instructions: 'x'.repeat(MB - 1024) })).status).toBe(200);
    await expectError(await start({ ...message(image(dataUrl('image/png', png))), instructions: 'x'.repeat(MB + 1024) }), 413, 'request_too_large');
  });

  it('a smaller maxTotalBytes makes the conversation cap smaller; an explicit bodyLimits.conversations wins', async () => {
    const small = await setup({ attachments: { maxTotalBytes: MB } });
    const body = JSON.stringify({ agent_id: 'ag_1', inputs: 'x'.repeat(3 * MB) });
    await expectError(await api(small.relay, '/v1/conversations', { token: small.token, rawBody: body, headers: { 'content-type': 'application/json' } }), 413, 'request_too_large');
    const explicit = await setup({ attachments: { maxTotalBytes: MB }, bodyLimits: { conversations: 4 * MB } });
    expect((await api(explicit.relay, '/v1/conversations', { token: explicit.token, rawBody: body, headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });
});

describe('the policy as configured', () => {
  it('refuses a type the relay cannot check by its bytes', () => {
    expect(() => attachmentLimitsOf({ types: ['image/svg+xml'] })).toThrow(/image\/svg\+xml/);
    expect(attachmentLimitsOf({ types: ['IMAGE/PNG'] }).types).toEqual(['image/png']);
  });

  it('reads the attachment settings from flags and the environment into the relay options', () => {
    const config = resolveRelayConfig({
      flags: { 'max-attachments': '2', 'attachment-type': ['image/png', 'application/pdf'] },
      env: { PLATFORM_API_KEY: 'k', PARLEY_MAX_ATTACHMENT_BYTES: '1048576', PARLEY_MAX_ATTACHMENTS_TOTAL_BYTES: '2097152' },
    });
    expect(relayOptionsOf(config).attachments).toEqual({ maxCount: 2, maxBytes: MB, maxTotalBytes: 2 * MB, types: ['image/png', 'application/pdf'] });
    expect(() => resolveRelayConfig({ flags: { 'attachment-type': ['text/html'] }, env: {} })).toThrow(/attachment-type/);
    expect(() => resolveRelayConfig({ flags: {}, env: { PARLEY_MAX_ATTACHMENTS: '-1' } })).toThrow(/PARLEY_MAX_ATTACHMENTS/);
  });
});
