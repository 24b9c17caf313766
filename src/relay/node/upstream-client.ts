/**
 * The relay's upstream client on Node: `node:http`/`node:https` with keep-alive agents, used by the Node
 * adapter instead of the global `fetch` (undici's fetch builds a `Request`, a body stream and an
 * abort signal per call, and writes headers and body separately; this costs more than the rest of the
 * relay together). The answer is a Web `Response` whose body streams the socket's bytes as they come.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isSmallLength, withBodySource, withBufferedBody, type BodySource } from '../proxy/buffered-body.js';
import type { UpstreamSend } from '../proxy/forward.js';
import { signalHandle } from '../proxy/lazy-abort.js';

/** Options of {@link createNodeUpstreamSend}. */
export interface NodeUpstreamOptions {
  /** Sockets per upstream host (default 256). */
  maxSockets?: number;
}

/** An upstream client over keep-alive `node:http` and `node:https` agents. */
export function createNodeUpstreamSend(options: NodeUpstreamOptions = {}): UpstreamSend {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256, scheduling: 'lifo' as const };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  return (init) => new Promise<Response>((resolve, reject) => {
    const abort = init.abort ?? signalHandle(init.signal);
    if (abort.aborted) return reject(abort.reason);
    const target = targetOf(init.url);
    const headers: OutgoingHttpHeaders = {};
    if (init.headers instanceof Headers) {
      init.headers.forEach((value, name) => {
        headers[name] = value;
      });
    } else {
      Object.assign(headers, init.headers);
    }
    const body = init.body ?? undefined;
    if (body instanceof Uint8Array) headers['content-length'] = String(body.byteLength);
    const req = (target.secure ? httpsRequest : httpRequest)({
      protocol: target.protocol, hostname: target.hostname, port: target.port, path: target.path,
      method: init.method, headers, agent: target.secure ? agents.https : agents.http,
    });
    let response: IncomingMessage | undefined;
    const unlink = abort.onAbort(() => {
      const reason = abort.reason instanceof Error ? abort.reason : new Error('aborted');
      req.destroy(reason);
      response?.destroy(reason);
      reject(abort.reason);
    });
    req.on('error', (err) => {
      unlink();
      reject(err);
    });
    req.on('response', (res: IncomingMessage) => {
      response = res;
      res.on('close', unlink);
      // A status a Response cannot carry (e.g. 600) is an unusable answer, as with fetch.
      const answer = (make: () => Response) => {
        try {
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 599) throw new RangeError(`upstream status ${status}`);
          resolve(make());
        } catch (err) {
          res.destroy();
          reject(answered(err));
        }
      };
      if (isSmall(res)) readWhole(res).then((bytes) => answer(() => bufferedResponse(res, bytes)), (err) => reject(answered(err)));
      else answer(() => webResponse(res, init.method));
    });
    if (body instanceof ReadableStream) void pump(body, req);
    else req.end(body);
  });
}

/** Where an upstream URL goes: its origin's parts (parsed once per origin) and its path with query. */
interface Target { secure: boolean; protocol: string; hostname: string; port: string; path: string }

const origins = new Map<string, Omit<Target, 'path'>>();

/** Splits an absolute http(s) URL into request options; the origin is parsed with `URL` once and remembered. */
function targetOf(href: string): Target {
  const slash = href.indexOf('/', href.indexOf('//') + 2);
  const origin = slash < 0 ? href : href.slice(0, slash);
  let parts = origins.get(origin);
  if (!parts) {
    const url = new URL(origin);
    const secure = url.protocol === 'https:';
    // `hostname` keeps IPv6 brackets; node:http wants them off.
    parts = { secure, protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || (secure ? '443' : '80') };
    if (origins.size < 64) origins.set(origin, parts);
  }
  const path = slash < 0 ? '/' : href.slice(slash);
  return { ...parts, path };
}

/**
 * Marks a failure that came after the upstream began to answer: the request was received (a POST may
 * have run), so the caller must not send it again (`answered` is what the relay's retry rule reads).
 */
function answered(err: unknown): Error {
  const error = err instanceof Error ? err : new Error(String(err));
  return Object.assign(error, { answered: true });
}

/** Resolves on `drain`, or when the request closes or fails first (no `drain` follows those). */
function drained(req: ReturnType<typeof httpRequest>): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
    req.on('error', done);
  });
}

/** Writes a body stream into the request, waiting for `drain`; a failed body destroys the request. */
async function pump(body: ReadableStream<Uint8Array>, req: ReturnType<typeof httpRequest>): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (req.destroyed) throw new Error('upstream request closed');
      if (!req.write(value)) await drained(req);
    }
    req.end();
  } catch (err) {
    req.destroy(err instanceof Error ? err : new Error(String(err)));
    void reader.cancel(err).catch(() => {});
  }
}

/** Statuses whose `Response` must have no body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Answers of a small declared length (`isSmallLength`), not event streams, are read whole before the `Response` is made. */
function isSmall(res: IncomingMessage): boolean {
  return isSmallLength(res.headers['content-length'])
    && !(res.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
}

function readWhole(res: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    res.on('error', () => {}); // reported through `close`
    res.on('close', () => {
      if (!res.complete) reject(new Error('The upstream connection closed before the answer ended'));
    });
  });
}

/**
 * The answer's headers, without those that say nothing past this hop: `Date`, `Keep-Alive` and a `Connection`
 * of only `keep-alive`/`close` (one `Connection` naming other headers is kept, so they are dropped downstream).
 */
function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    if (name.length === 4 && name.toLowerCase() === 'date') continue;
    if (name.length === 10 && (name.toLowerCase() === 'keep-alive' || (name.toLowerCase() === 'connection' && /^\s*(keep-alive|close)\s*$/i.test(value)))) continue;
    headers.append(name, value);
  }
  return headers;
}

/** A small answer read whole: its bytes are the body, and {@link bufferedBodyOf} gives them without a stream. */
function bufferedResponse(res: IncomingMessage, bytes: Uint8Array): Response {
  const status = res.statusCode ?? 502;
  const body = NULL_BODY_STATUSES.has(status) ? null : bytes as Uint8Array<ArrayBuffer>;
  const response = new Response(body, { status, headers: headersOf(res) });
  return body ? withBufferedBody(response, bytes) : response;
}

/** The Node answer as a Web `Response`; its body pauses the socket while the reader is behind. */
function webResponse(res: IncomingMessage, method: string): Response {
  const headers = headersOf(res);
  const status = res.statusCode ?? 502;
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    res.resume();
    return new Response(null, { status, headers });
  }
  const source = nodeBodySource(res);
  // For readers of `response.body`; the relay reads `source` itself (bodyReaderOf). No read ahead: only one of them reads.
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => source.read().then((r) => (r.done ? controller.close() : controller.enqueue(r.value))),
    cancel: (reason) => source.cancel(reason),
  }, { highWaterMark: 0 });
  return withBodySource(new Response(body, { status, headers }), source);
}

/** Reads the answer's chunks as they come; the socket is paused while a chunk waits for its reader. */
function nodeBodySource(res: IncomingMessage): BodySource {
  const queue: Uint8Array[] = [];
  let waiting: { resolve: (r: ReadableStreamReadResult<Uint8Array>) => void; reject: (e: Error) => void } | undefined;
  let ended = false;
  let failure: Error | undefined;
  const settle = () => {
    const w = waiting;
    if (!w || queue.length) return;
    waiting = undefined;
    if (failure) w.reject(failure);
    else w.resolve({ done: true, value: undefined });
  };
  res.on('data', (chunk: Buffer) => {
    const value = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const w = waiting;
    if (w) {
      waiting = undefined;
      w.resolve({ done: false, value });
    } else {
      queue.push(value);
      res.pause();
    }
  });
  res.on('end', () => {
    ended = true;
    settle();
  });
  res.on('error', () => {}); // reported through `close` below
  res.on('close', () => {
    if (ended) return;
    ended = true;
    failure ??= new Error('The upstream connection closed before the answer ended');
    settle();
  });
  return {
    read() {
      const value = queue.shift();
      if (value) {
        if (!queue.length && !ended) res.resume();
        return Promise.resolve({ done: false, value });
      }
      if (failure) return Promise.reject(failure);
      if (ended) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
      });
    },
    cancel() {
      if (!ended) {
        ended = true;
        failure = undefined;
      }
      queue.length = 0;
      res.destroy();
      settle();
      return Promise.resolve();
    },
  };
}
