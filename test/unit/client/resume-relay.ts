/**
 * A stand-in for the relay's resumable streams (the wire protocol of issue 16) in front of the real
 * local platform, with a switch to cut the page's connection: it names every streamed answer
 * (`Parley-Stream-Id`), gives each event an id `<streamId>:<seq>`, keeps reading the upstream into a
 * buffer when the page's connection drops, and answers `GET /streams/{id}` (Last-Event-ID) and
 * `DELETE /streams/{id}`. The client tests use it where they need to cut a connection at a chosen event.
 */
import type { Platform } from '@parley-kit/platform';
import { API_KEY } from './helpers.js';

export interface ResumeRelay {
  fetch: typeof fetch;
  /** The page's next `n` connections to a stream are cut after `after` events (one number per connection). */
  cuts: number[];
  /** The page's next connections go silent (no byte, no close) after this many events (one number per connection). */
  stalls: number[];
  /** Every request the page made: `METHOD path [last-event-id]`. */
  log: string[];
  /** Streams cancelled by DELETE. */
  deleted: Set<string>;
  /** Forgets every buffer (as if the relay expired them): resumes answer 410. */
  expire(): void;
  /** The full text of each stream's event data, by stream id. */
  streams: Map<string, Buffered>;
}

interface Buffered { events: string[]; ended: boolean; waiters: Set<() => void>; upstream: AbortController }

export function resumeRelay(platform: Platform, base: string): ResumeRelay {
  const streams = new Map<string, Buffered>();
  let counter = 0;
  const relay: ResumeRelay = {
    cuts: [],
    stalls: [],
    log: [],
    deleted: new Set(),
    streams,
    expire: () => streams.clear(),
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const path = request.url.slice(base.length);
      relay.log.push(`${request.method} ${path}${request.headers.get('last-event-id') ? ` ${request.headers.get('last-event-id')}` : ''}`);
      const match = /^\/streams\/([^/?]+)$/.exec(path);
      if (match) {
        const id = decodeURIComponent(match[1]);
        if (request.method === 'DELETE') {
          relay.deleted.add(id);
          streams.get(id)?.upstream.abort();
          streams.delete(id);
          return new Response(null, { status: 204 });
        }
        const stream = streams.get(id);
        if (!stream) return gone();
        const last = request.headers.get('last-event-id');
        const from = last ? Number(last.slice(id.length + 1)) : 0;
        return page(id, stream, from, request.signal);
      }
      const upstream = new AbortController();
      request.signal.addEventListener('abort', () => {
        // The page went away: the relay keeps reading (only a DELETE stops the upstream).
      });
      const res = await platform.fetch(new Request(`http://platform.test${path}`, {
        method: request.method, headers: { ...Object.fromEntries(request.headers), authorization: `Bearer ${API_KEY}` },
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text(), signal: upstream.signal,
      }));
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body) return res;
      const id = `rs_${String(++counter).padStart(22, '0')}`;
      const stream: Buffered = { events: [], ended: false, waiters: new Set(), upstream };
      streams.set(id, stream);
      void pump(res.body, stream);
      return page(id, stream, 0, request.signal);
    },
  };

  function page(id: string, stream: Buffered, from: number, signal: AbortSignal): Response {
    const encoder = new TextEncoder();
    let next = from;
    let sent = 0;
    const cut = relay.cuts.length ? relay.cuts.shift()! : Infinity;
    const stall = relay.stalls.length ? relay.stalls.shift()! : Infinity;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          if (signal.aborted) return controller.error(Object.assign(new Error('aborted'), { name: 'AbortError' }));
          if (sent >= cut) return controller.error(new TypeError('network error: connection cut'));
          if (sent >= stall) return new Promise<void>(() => {}); // a dead connection: nothing, ever
          if (next < stream.events.length) {
            next += 1;
            sent += 1;
            controller.enqueue(encoder.encode(`id: ${id}:${next}\n${stream.events[next - 1]}\n\n`));
            return;
          }
          if (stream.ended) return controller.close();
          await new Promise<void>((resolve) => stream.waiters.add(resolve));
        }
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'parley-stream-id': id } });
  }

  return relay;
}

async function pump(body: ReadableStream<Uint8Array>, stream: Buffered): Promise<void> {
  const decoder = new TextDecoder();
  let text = '';
  const wake = () => {
    for (const w of stream.waiters) w();
    stream.waiters.clear();
  };
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const frame = text.slice(0, end).split('\n').filter((l) => !l.startsWith(':') && !l.startsWith('id:')).join('\n');
        text = text.slice(end + 2);
        if (frame) stream.events.push(frame);
      }
      wake();
    }
  } catch {
    // upstream aborted by a DELETE
  }
  stream.ended = true;
  wake();
}

function gone(): Response {
  return new Response(JSON.stringify({ object: 'error', type: 'invalid_request_error', code: 'stream_gone', message: 'This reply can no longer be resumed.' }), {
    status: 410, headers: { 'content-type': 'application/json' },
  });
}
