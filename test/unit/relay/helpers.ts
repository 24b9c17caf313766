import { expect } from 'vitest';
import type { SessionResponse } from '../../../src/client/contracts.js';
import { ALL_SCOPES, createRelay, type Relay, type RelayOptions } from '../../../src/relay/index.js';

export const UPSTREAM_KEY = 'sk-upstream-SECRET-4f9a2c7e1b';
export const SECRET = 'relay-test-secret-0123456789-abcdefghij';
export const ORIGIN = 'https://shop.example';
export const RELAY = 'http://relay.test/api';
export const UPSTREAM = 'http://platform.internal';

/** What the fake upstream saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Headers;
  signal: AbortSignal;
  request: Request;
}

export type UpstreamHandler = (request: Request, seen: SeenRequest) => Response | Promise<Response>;

/** A fake platform that records every request it receives. */
export function fakeUpstream(handler: UpstreamHandler = () => json({ ok: true })) {
  const calls: SeenRequest[] = [];
  const fetch = async (request: Request) => {
    const seen = { method: request.method, url: request.url, headers: new Headers(request.headers), signal: request.signal, request };
    calls.push(seen);
    return handler(request, seen);
  };
  return { fetch, calls };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * Every scope, any agent and model: the tests' base policy (the library's default is locked down).
 * `makeRelay` fills the fields a test's `policy` leaves out from it.
 */
export const OPEN_POLICY = { scopes: [...ALL_SCOPES], agents: ['*'], models: ['*'] };

/** A relay under `/api` with test-friendly defaults (fixed client address, fast heartbeat, no retry delay, {@link OPEN_POLICY}). */
export function makeRelay(upstreamFetch: (r: Request) => Promise<Response>, options: Partial<RelayOptions> = {}): Relay {
  const { policy, ...rest } = options;
  return createRelay({
    upstream: { baseUrl: UPSTREAM, apiKey: UPSTREAM_KEY, fetch: upstreamFetch },
    basePath: '/api',
    allowedOrigins: [ORIGIN],
    secret: SECRET,
    getClientIp: () => '203.0.113.7',
    limits: { requestsPerMinute: 10_000, burst: 10_000, sessionsPerMinute: 10_000, sessionBurst: 10_000 },
    policy: { ...OPEN_POLICY, limits: { requestsPerMinute: 10_000, burst: 10_000, concurrentStreams: 5 }, ...policy },
    retryDelayMs: 0,
    heartbeatMs: 50,
    onError: (e) => { throw e; },
    ...rest,
  });
}

/** `POST {relay}/session`, expecting success. */
export async function openSession(relay: Relay, body?: unknown, headers: Record<string, string> = { origin: ORIGIN }): Promise<SessionResponse> {
  const res = await sessionCall(relay, body, headers);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<SessionResponse>;
}

export function sessionCall(relay: Relay, body?: unknown, headers: Record<string, string> = { origin: ORIGIN }): Promise<Response> {
  const init: RequestInit = { method: 'POST', headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  return relay.fetch(new Request(`${RELAY}/session`, init));
}

export interface ApiOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Calls `{relay}{path}` with the session token; JSON bodies get their content type. */
export function api(relay: Relay, path: string, options: ApiOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const init: RequestInit & { duplex?: 'half' } = { method: options.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body, signal: options.signal };
  if (body instanceof ReadableStream) init.duplex = 'half';
  return relay.fetch(new Request(RELAY + path, init));
}

/** A response's full text plus every header, for "the key never appears" checks. */
export async function everyByte(response: Response): Promise<string> {
  const head = [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
  return `${response.status}\n${head}\n\n${await response.text()}`;
}

const encoder = new TextEncoder();

/** A body read to its end in the background: its text so far, and how it ended. */
export interface BodyReading {
  text: () => string;
  /** 'done' once the body ended, 'broken' when it failed. */
  ended: Promise<'done' | 'broken'>;
  /** Stops reading (cancels the body). */
  cancel: () => Promise<void>;
}

/** Reads `body` (none: an empty one) in the background as text; see {@link BodyReading}. */
export function readOn(body: ReadableStream<Uint8Array> | null): BodyReading {
  const reader = body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const ended = (async (): Promise<'done' | 'broken'> => {
    if (!reader) return 'done';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'done';
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      return 'broken';
    }
  })();
  return { text: () => text, ended, cancel: async () => { await reader?.cancel().catch(() => {}); } };
}

export interface ScriptedStream {
  response: Response;
  /** Resolves when the upstream body is cancelled or its request signal aborts. */
  stopped: Promise<string>;
  /** The events written so far. */
  emitted: string[];
}

/**
 * An SSE upstream answer: writes `events` (already framed) one every `intervalMs`, then keeps the
 * stream open when `holdOpen`, else closes. With `after`, nothing is written before it resolves.
 */
export function scriptedStream(events: string[], options: { intervalMs?: number; holdOpen?: boolean; signal?: AbortSignal; firstDelayMs?: number; after?: Promise<unknown> } = {}): ScriptedStream {
  const emitted: string[] = [];
  let stop!: (how: string) => void;
  const stopped = new Promise<string>((resolve) => { stop = resolve; });
  let timer: ReturnType<typeof setTimeout> | undefined;
  options.signal?.addEventListener('abort', () => { clearTimeout(timer); stop('signal'); });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let i = 0;
      const next = () => {
        if (i < events.length) {
          try { controller.enqueue(encoder.encode(events[i]!)); } catch { return; }
          emitted.push(events[i++]!);
          timer = setTimeout(next, options.intervalMs ?? 0);
        } else if (!options.holdOpen) {
          try { controller.close(); } catch { /* cancelled */ }
        }
      };
      const begin = () => { timer = setTimeout(next, options.firstDelayMs ?? 0); };
      if (options.after) void options.after.then(begin);
      else begin();
    },
    cancel() {
      clearTimeout(timer);
      stop('cancel');
    },
  });
  return { response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }), stopped, emitted };
}

export function sseEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

export function startedEvent(conversationId: string): string {
  return sseEvent('conversation.response.started', { conversation_id: conversationId, created_at: '2026-01-01T00:00:00.000000Z' });
}

export function deltaEvent(text: string): string {
  return sseEvent('message.output.delta', { id: 'msg_1', content: text, output_index: 0, content_index: 0, model: 'm', agent_id: null, role: 'assistant' });
}

/** SSE text without the relay's resume ids (`id: rs_…:<seq>` lines, added to every relayed event). */
export function withoutIds(text: string): string {
  return text.replace(/^id: rs_[A-Za-z0-9_-]{22}:\d+\n/gm, '');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with `promise`'s value, or rejects after `ms`: a safety net against a hang, not a speed check. */
export function within<T>(promise: Promise<T>, ms: number, what = 'event'): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))]);
}
