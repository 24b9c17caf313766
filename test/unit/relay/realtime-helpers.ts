// A fake realtime upstream (a real `ws` server on loopback) and a page-side socket helper, for the
// relay's WebSocket tests.
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { ORIGIN, RELAY, UPSTREAM, UPSTREAM_KEY, fakeUpstream, makeRelay, within } from './helpers.js';
import { serveRelay, type Relay, type RelayOptions } from '../../../src/relay/index.js';

/** What the fake upstream saw of one connection. */
export interface UpstreamConnection {
  url: string;
  headers: IncomingHttpHeaders;
  received: any[];
  socket: WebSocket;
  closed: Promise<number>;
}

/**
 * A realtime platform stand-in: `session.created` on connect, `session.updated` on update, counts
 * appended audio bytes and answers `input_audio.end` with a delta and `transcription.done`, then closes.
 * `onConnect` may script something else (e.g. close abnormally).
 */
export async function fakeRealtimeUpstream(options: { onConnect?: (socket: WebSocket) => boolean; verify?: () => boolean } = {}) {
  const connections: UpstreamConnection[] = [];
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', verifyClient: options.verify ? () => options.verify!() : undefined });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket, request) => {
    const conn: UpstreamConnection = {
      url: request.url ?? '', headers: request.headers, received: [], socket,
      closed: new Promise((resolve) => socket.once('close', (code) => resolve(code))),
    };
    connections.push(conn);
    if (options.onConnect?.(socket)) return;
    let rate = 16000;
    let audioBytes = 0;
    const session = () => ({ request_id: 'req_1', model: 'voxtral-mini-transcribe-realtime-2602', audio_format: { encoding: 'pcm_s16le', sample_rate: rate } });
    socket.send(JSON.stringify({ type: 'session.created', session: session() }));
    socket.on('message', (data: RawData) => {
      const message = JSON.parse(data.toString());
      conn.received.push(message);
      if (message.type === 'session.update') {
        rate = message.session.audio_format?.sample_rate ?? rate;
        socket.send(JSON.stringify({ type: 'session.updated', session: session() }));
      } else if (message.type === 'input_audio.append') {
        audioBytes += Buffer.from(message.audio, 'base64').length;
      } else if (message.type === 'input_audio.end') {
        const text = `heard ${audioBytes} bytes`;
        socket.send(JSON.stringify({ type: 'transcription.text.delta', text }));
        socket.send(JSON.stringify({ type: 'transcription.done', model: 'm', text, language: 'en', segments: [], usage: { prompt_tokens: 0, completion_tokens: 1, total_tokens: 1 } }));
        socket.close(1000);
      }
    });
  });
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    connections,
    close: () => new Promise<void>((resolve) => {
      for (const client of wss.clients) client.terminate();
      wss.close(() => resolve());
    }),
  };
}

/** `POST {relay}/v1/client/sessions` with a session token; the answer as is. */
export function mintTicket(relay: Relay, token: string, body: unknown = { purpose: 'realtime', model: 'voxtral-mini-transcribe-realtime-2602' }, origin: string | null = ORIGIN): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (origin) headers.origin = origin;
  return relay.fetch(new Request(`${RELAY}/v1/client/sessions`, { method: 'POST', headers, body: JSON.stringify(body) }));
}

/** A ticket value, expecting success. */
export async function ticketFor(relay: Relay, token: string, model = 'voxtral-mini-transcribe-realtime-2602'): Promise<string> {
  const res = await mintTicket(relay, token, { purpose: 'realtime', model });
  if (res.status !== 201) throw new Error(`ticket: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_secret: { value: string } }).client_secret.value;
}

/** The outcome of opening a page socket: accepted (with its messages) or refused (status and body). */
export type Opened =
  | { kind: 'open'; socket: WebSocket; protocol: string; messages: any[]; raw: string[]; closed: Promise<{ code: number; reason: string }>; next: (type?: string, ms?: number) => Promise<any> }
  | { kind: 'refused'; status: number; body: string };

/** Opens `{served}{path}` as a page would (subprotocols `realtime` + ticket, an Origin). */
export function openPage(baseUrl: string, path: string, protocols: string[], origin: string | null = ORIGIN): Promise<Opened> {
  const url = baseUrl.replace(/^http/, 'ws') + path;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, origin ? { origin } : {});
    const messages: any[] = [];
    const raw: string[] = [];
    const waiters: Array<{ type?: string; resolve: (m: any) => void }> = [];
    let seen = 0;
    const closed = new Promise<{ code: number; reason: string }>((done) => socket.once('close', (code, reason) => done({ code, reason: reason.toString() })));
    socket.on('message', (data) => {
      raw.push(data.toString());
      const message = JSON.parse(data.toString());
      messages.push(message);
      for (const w of [...waiters]) {
        if (!w.type || w.type === message.type) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(message);
        }
      }
    });
    /** The next message (of `type`) not yet returned by `next`. */
    const next = (type?: string, ms = 15_000) => {
      const found = messages.slice(seen).find((m) => !type || m.type === type);
      if (found) {
        seen = messages.indexOf(found) + 1;
        return Promise.resolve(found);
      }
      return within(new Promise((res) => waiters.push({ type, resolve: (m) => { seen = messages.indexOf(m) + 1; res(m); } })), ms, `message ${type ?? ''}`);
    };
    socket.once('open', () => resolve({ kind: 'open', socket, protocol: socket.protocol, messages, raw, closed, next }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ kind: 'refused', status: res.statusCode ?? 0, body }));
    });
    socket.once('error', (error) => {
      if (socket.readyState !== WebSocket.CLOSED) return;
      reject(error);
    });
  });
}

/** An s16le chunk of `samples` samples of a quiet tone, base64. */
export function audioChunk(samples: number): string {
  const pcm = new Int16Array(samples);
  for (let i = 0; i < samples; i++) pcm[i] = Math.round(3000 * Math.sin(i / 8));
  return Buffer.from(pcm.buffer).toString('base64');
}

type Upstream = Awaited<ReturnType<typeof fakeRealtimeUpstream>>;

/**
 * A test file's realtime set-up: relays served on loopback over a realtime upstream, page sockets, each
 * closed after its test (registers an `afterEach`; call it at the top of the file).
 */
export function useRealtimeHarness() {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** A relay served on loopback whose upstream WebSocket base is `upstream`; errors are collected. */
  async function relayOver(upstream: Upstream, options: Partial<RelayOptions> = {}) {
    const http = fakeUpstream();
    const errors: unknown[] = [];
    const relay = makeRelay(http.fetch, {
      upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: http.fetch, webSocketBaseUrl: () => upstream.url },
      onError: (e) => errors.push(e),
      ...options,
    });
    const served = await serveRelay(relay);
    cleanups.push(() => served.close());
    return { relay, served, http, errors };
  }

  async function withUpstream(options: Parameters<typeof fakeRealtimeUpstream>[0] = {}): Promise<Upstream> {
    const upstream = await fakeRealtimeUpstream(options);
    cleanups.push(() => upstream.close());
    return upstream;
  }

  function open(opened: Opened): Extract<Opened, { kind: 'open' }> {
    if (opened.kind !== 'open') throw new Error(`refused ${opened.status}: ${opened.body}`);
    cleanups.push(() => opened.socket.terminate());
    return opened;
  }

  function refused(opened: Opened): { status: number; body: any } {
    if (opened.kind !== 'refused') {
      opened.socket.terminate();
      throw new Error('the socket was accepted');
    }
    return { status: opened.status, body: opened.body ? JSON.parse(opened.body) : null };
  }

  return { relayOver, withUpstream, open, refused, cleanups };
}
