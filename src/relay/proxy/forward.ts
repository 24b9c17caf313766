/**
 * Talking to the upstream platform. Upstream requests are built from an allowlist of headers (the
 * client's credentials, cookies, forwarding and hop-by-hop headers never pass) plus the relay's own
 * key; answers are rebuilt from an allowlist too (no `Set-Cookie`, `Server`, internal headers), with
 * the key scrubbed from the values kept. Bodies passed through are scrubbed as they stream (scrub.ts,
 * in answer.ts and event-stream.ts); bodies read whole here are scrubbed by {@link readUpstreamText}.
 * One retry is made for a connection failure or a 502/503, only before anything was sent downstream
 * and only when the request body can be sent again.
 */
import { bufferedBodyOf } from './buffered-body.js';
import { BodyTooLargeError, readCapped } from '../../server/read-capped.js';
import { RelayError, upstreamError } from '../errors.js';
import { scrubKey } from './scrub.js';
import { abortHandleOf, type AbortHandle, type LazyAbortController } from './lazy-abort.js';

/** The platform the relay forwards to. */
export interface UpstreamOptions {
  /** Base URL of the platform API, e.g. `https://api.mistral.ai` (paths `/v1/…` are appended). */
  baseUrl: string;
  /** The platform API key; sent upstream only, and scrubbed from everything answered (an upstream echoing it included). */
  apiKey: string;
  /**
   * Fetch function for upstream calls (`npm start` passes the local platform's handler). Default: served by
   * the Node adapter (`serveRelay`, `nodeRelayEnv`), a keep-alive `node:http` client; elsewhere the global fetch.
   */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Base URL of the platform's WebSockets (realtime transcription), e.g. `wss://api.mistral.ai`; a
   * function is asked on every connection (e.g. a server's own URL, known once it listens).
   * Default: `baseUrl` with `http` → `ws`. Needed when `fetch` reaches the platform in-process.
   */
  webSocketBaseUrl?: string | (() => string);
}

/** An upstream request, before it would become a `Request`. */
export interface UpstreamRequestInit {
  url: string;
  method: string;
  /** Lower-case names (a record from {@link upstreamRequestHeaders}, or `Headers`). */
  headers: Headers | Record<string, string>;
  /** In-memory bodies are sent in one write with their length; streams are sent chunked. */
  body?: Uint8Array | ReadableStream<Uint8Array> | null;
  /** Aborts the request. On the relay's own calls it is a getter making the signal on first read: prefer `abort`. */
  signal: AbortSignal;
  /** The same abort without an `AbortSignal` (lazy-abort.ts), when the caller has one: cheaper to listen to. */
  abort?: AbortHandle;
}

/**
 * A host's own upstream client (`RelayEnv.upstreamSend`; the Node adapter's is node/upstream-client.ts): sends
 * an upstream request; resolves with the answer once its headers arrive, rejects when it cannot be sent.
 */
export type UpstreamSend = (init: UpstreamRequestInit) => Promise<Response>;

/** Client request headers passed upstream (everything else is dropped). */
export const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'idempotency-key', 'x-request-id'];
/** Upstream answer headers passed to the client (everything else is dropped). */
export const PASSED_RESPONSE_HEADERS = ['content-type', 'content-disposition', 'content-language', 'retry-after', 'x-request-id'];

/** Header names listed in `Connection` (they are hop-by-hop for this message); null when it lists only `keep-alive`/`close` or is absent. */
function connectionNamed(headers: Headers): Set<string> | null {
  const value = headers.get('connection');
  if (value === null) return null;
  const lower = value.trim().toLowerCase();
  if (lower === 'keep-alive' || lower === 'close' || lower === '') return null;
  return new Set(lower.split(',').map((s) => s.trim()).filter(Boolean));
}

function copyAllowed(from: Headers, names: string[], map: (value: string) => string = (value) => value): Headers {
  const dropped = connectionNamed(from);
  const out = new Headers();
  for (const name of names) {
    const value = from.get(name);
    if (value !== null && !dropped?.has(name)) out.set(name, map(value));
  }
  return out;
}

/**
 * Headers of the upstream request: the allowlisted client headers plus the relay's key, as a plain record
 * (what a `Request` and the Node client both take; no `Headers` object to build and read back per request).
 */
export function upstreamRequestHeaders(request: Request, apiKey: string): Record<string, string> {
  const from = request.headers;
  const dropped = connectionNamed(from);
  const out: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = from.get(name);
    if (value !== null && !dropped?.has(name)) out[name] = value;
  }
  out.authorization = `Bearer ${apiKey}`;
  // Compressed SSE would be buffered by decompressors; ask for bytes as they are.
  out['accept-encoding'] = 'identity';
  return out;
}

/** Adds the relay's own upstream headers (key, no compression) to `headers`. */
export function withKey(headers: Headers, apiKey: string): Headers {
  headers.set('authorization', `Bearer ${apiKey}`);
  headers.set('accept-encoding', 'identity');
  return headers;
}

/** Headers of the client answer taken from the upstream answer (allowlist), the key scrubbed from their values. */
export function downstreamHeaders(upstream: Headers, apiKey: string): Headers {
  return copyAllowed(upstream, PASSED_RESPONSE_HEADERS, (value) => scrubKey(value, apiKey));
}

/** One upstream call, as {@link callUpstream} makes it. */
export interface UpstreamCall {
  /** Builds the request for an attempt (called again for the retry). */
  build: () => Request;
  /** Whether the request may be sent twice (its body is in memory, or it has none). */
  retryable: boolean;
  /** Aborts the upstream request: client gone, timeout, or body overflow. */
  controller: AbortController | LazyAbortController;
  fetch: (request: Request) => Promise<Response>;
  /** Sends an attempt without building a `Request` (the host's own client); replaces `fetch(build())` when given. */
  send?: () => Promise<Response>;
  /** Time allowed until the upstream answers with headers. */
  timeoutMs: number;
  retryDelayMs: number;
}

/** Calls the upstream; throws a {@link RelayError} (502/504) when it cannot answer. */
export async function callUpstream(call: UpstreamCall): Promise<Response> {
  const timer = setTimeout(() => call.controller.abort(new TimeoutReason()), call.timeoutMs);
  const abort = abortHandleOf(call.controller);
  try {
    for (let attempt = 1; ; attempt++) {
      const last = !call.retryable || attempt >= 2;
      let response: Response;
      try {
        response = await (call.send ? call.send() : call.fetch(call.build()));
      } catch (err) {
        if (abort.aborted) throw abortedError(abort.reason);
        // The platform had begun to answer: the request may have run, so it is never sent again.
        if ((err as { answered?: boolean } | null)?.answered === true) throw upstreamError(502, 'The platform answer broke off', 'upstream_unavailable');
        if (last) throw upstreamError(502, 'The platform could not be reached', 'upstream_unavailable');
        await delay(call.retryDelayMs, abort);
        continue;
      }
      if ((response.status === 502 || response.status === 503) && !last) {
        void response.body?.cancel().catch(() => {});
        await delay(call.retryDelayMs, abort);
        continue;
      }
      return response;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Reason given to the upstream abort when the header timeout fires. */
export class TimeoutReason extends Error {
  constructor() {
    super('upstream timeout');
  }
}

function abortedError(reason: unknown): RelayError {
  if (reason instanceof RelayError) return reason;
  if (reason instanceof TimeoutReason) return upstreamError(504, 'The platform did not answer in time', 'upstream_timeout');
  // The client is gone; this answer is never read but keeps the flow simple.
  return upstreamError(499, 'Request aborted by the client', 'client_closed_request');
}

function delay(ms: number, abort: AbortHandle): Promise<void> {
  return new Promise((resolve, reject) => {
    if (abort.aborted) return reject(abortedError(abort.reason));
    const unlink = abort.onAbort(() => {
      clearTimeout(t);
      reject(abortedError(abort.reason));
    });
    const t = setTimeout(() => {
      unlink();
      resolve();
    }, ms);
  });
}

/**
 * Reads a small upstream body whole (errors, JSON answers to inspect), replacing any occurrence of
 * the key: a last guard so the key can never be echoed, whatever the upstream does.
 */
export async function readUpstreamText(response: Response, apiKey: string, maxBytes = 16 * 1024 * 1024): Promise<string> {
  let bytes: Uint8Array;
  try {
    const buffered = bufferedBodyOf(response);
    if (buffered && buffered.byteLength > maxBytes) throw new BodyTooLargeError(maxBytes);
    bytes = buffered ?? await readCapped(response.body, maxBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw upstreamError(502, 'The platform answer was too large');
    throw err;
  }
  return scrubKey(utf8.decode(bytes), apiKey);
}

/** One UTF-8 decoder for whole bodies (a decode without `stream` keeps no state). */
const utf8 = new TextDecoder();
