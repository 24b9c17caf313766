// The Node adapter writes event streams itself (src/relay/node/write-event-stream.ts): a first event that is
// ready with the upstream headers leaves in the same write as the answer head; one that is not does not
// hold the head back (node.test.ts: headers flushed before the first upstream byte).
import { Socket, connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serveRelay, type ServedRelay } from '../../../src/relay/index.js';
import { ORIGIN, deltaEvent, fakeUpstream, makeRelay, openSession, startedEvent, within } from './helpers.js';

let served: ServedRelay | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  vi.restoreAllMocks();
});

/** Records what each socket write hands to the kernel (one `_write` or `_writev` is one syscall's worth). */
function recordSocketWrites(): string[] {
  const writes: string[] = [];
  const text = (chunk: unknown) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
  const proto = Socket.prototype as unknown as {
    _write(chunk: unknown, encoding: string, cb: () => void): void;
    _writev(chunks: Array<{ chunk: unknown }>, cb: () => void): void;
  };
  const write = proto._write;
  const writev = proto._writev;
  vi.spyOn(proto, '_write').mockImplementation(function (this: unknown, chunk, encoding, cb) {
    writes.push(text(chunk));
    return write.call(this, chunk, encoding, cb);
  });
  vi.spyOn(proto, '_writev').mockImplementation(function (this: unknown, chunks, cb) {
    writes.push(chunks.map((c) => text(c.chunk)).join(''));
    return writev.call(this, chunks, cb);
  });
  return writes;
}

const encoder = new TextEncoder();

/** Sends a raw request; resolves with every chunk the socket received, in order, once the server ends it. */
function rawChunks(port: number, head: string, body: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const chunks: string[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(head + body));
    socket.on('data', (d) => chunks.push(d.toString('utf8')));
    socket.on('end', () => resolve(chunks));
    socket.on('error', reject);
  });
}

describe('Node adapter: event stream answers', () => {
  it('sends the head and a first event that came with the upstream headers in one write', async () => {
    let later!: ReadableStreamDefaultController<Uint8Array>;
    const upstream = fakeUpstream(() => new Response(new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(startedEvent('conv_one'))); // there with the headers
        later = c;
      },
    }), { headers: { 'content-type': 'text/event-stream' } }));
    const relay = makeRelay(upstream.fetch, { heartbeatMs: 10_000 });
    const { token } = await openSession(relay);
    served = await serveRelay(relay);
    const writes = recordSocketWrites();

    const body = JSON.stringify({ model: 'm', inputs: 'hi', stream: true });
    const answer = rawChunks(served.port, [
      'POST /api/v1/conversations HTTP/1.1', 'Host: 127.0.0.1', `Origin: ${ORIGIN}`, `Authorization: Bearer ${token}`,
      'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', '',
    ].join('\r\n'), body);
    // The rest of the stream, once the first write is surely out.
    await within(new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (!later) return;
        clearInterval(poll);
        resolve();
      }, 5);
    }), 5_000, 'the upstream call');
    setTimeout(() => {
      later.enqueue(encoder.encode(deltaEvent('more')));
      later.close();
    }, 50);
    const chunks = await within(answer, 5_000, 'the whole answer');

    const headWrite = writes.find((w) => w.startsWith('HTTP/1.1 200 OK\r\n'));
    expect(headWrite?.toLowerCase()).toContain('content-type: text/event-stream');
    expect(headWrite, 'the first event rides with the head').toContain('conversation.response.started');
    expect(chunks[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const all = chunks.join('');
    expect(all).toContain('message.output.delta');
    expect(all.toLowerCase()).toContain('server-timing: relay;dur=');
    expect(all.toLowerCase()).toContain('x-content-type-options: nosniff');
    expect(all.toLowerCase()).toContain(`access-control-allow-origin: ${ORIGIN}`);
  });
});
