/**
 * Request bodies on a Node server, around the fetch handler (node-serve.ts):
 *
 * - A refused body (the handler answered 4xx/5xx before the client finished sending) is read and discarded
 *   up to {@link BodyGuardOptions.drainMaxBytes} before the answer is written, so the client reads the answer
 *   instead of `EPIPE`/`ECONNRESET` from a socket closed under its upload. Past the bound, or when the client
 *   stops sending for {@link BodyGuardOptions.drainIdleMs}, the answer carries `Connection: close` and the
 *   socket closes once it is flushed. A 408 (the client is too slow) is not drained: answered, then closed.
 * - Optionally, a body that stalls ({@link BodyGuardOptions.idleTimeoutMs} without a byte while the server
 *   waits for one) or that crawls ({@link BodyGuardOptions.requestTimeoutMs} passed and the average below
 *   {@link BodyGuardOptions.minBytesPerSecond}) is answered with the 408 of {@link BodyGuardOptions.timeoutAnswer}
 *   and `Connection: close`; the socket is closed after it, which fails the handler's read (its memory is freed).
 *   Only time spent waiting for the client counts: a body the server is not reading (bytes buffered unread)
 *   is never idle. An upload that keeps sending is never cut, however long it takes; an answer already started
 *   (an event stream) is never cut.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface BodyGuardOptions {
  /** Most bytes of a refused body read and discarded before the answer (default 64 MiB). */
  drainMaxBytes?: number;
  /** Drain gives up when no byte comes for this long (default 5 000 ms). */
  drainIdleMs?: number;
  /** No body byte for this long while the server waits for one → 408 (default 0: off). */
  idleTimeoutMs?: number;
  /** After this long receiving a body averaging under `minBytesPerSecond` → 408 (default 0: off). */
  requestTimeoutMs?: number;
  /** The average body rate that keeps a request past `requestTimeoutMs` (default 16 KiB/s). */
  minBytesPerSecond?: number;
  /** The 408 answer, given a sentence saying why (required for the timeouts to act). */
  timeoutAnswer?: (message: string) => Response;
}

export const DEFAULT_DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_DRAIN_IDLE_MS = 5_000;
export const DEFAULT_MIN_BYTES_PER_SECOND = 16 * 1024;

type Handler = (request: Request, env: { incoming: IncomingMessage; outgoing?: ServerResponse }) => Promise<Response> | Response;

/** `handler` wrapped with the body rules above. */
export function guardBodies(handler: Handler, options: BodyGuardOptions = {}): Handler {
  const drainMax = options.drainMaxBytes ?? DEFAULT_DRAIN_MAX_BYTES;
  const drainIdle = options.drainIdleMs ?? DEFAULT_DRAIN_IDLE_MS;
  const timed = !!options.timeoutAnswer && ((options.idleTimeoutMs ?? 0) > 0 || (options.requestTimeoutMs ?? 0) > 0);
  return (request, env) => {
    const { incoming } = env;
    if (incoming.complete || incoming.method === 'GET' || incoming.method === 'HEAD') return handler(request, env);
    const answered = Promise.resolve().then(() => handler(request, env));
    const settled = async (response: Response): Promise<Response> => {
      if (response.status < 400 || incoming.complete || incoming.destroyed) return response;
      if (response.status === 408) return closing(response); // a client too slow to wait for: answer, then close
      return (await drainBody(incoming, drainMax, drainIdle)) ? response : closing(response);
    };
    if (!timed) return answered.then(settled);
    const guard = watchBody(incoming, options);
    return Promise.race([answered.then(settled), guard.timedOut]).then(
      (response) => {
        guard.stop();
        if (guard.fired) answered.catch(() => {}); // the handler fails when the socket closes; its answer is not written
        return response;
      },
      (err) => {
        guard.stop();
        throw err;
      },
    );
  };
}

/** `response` with `Connection: close` (Node then closes the socket once it is written). */
function closing(response: Response): Response {
  try {
    response.headers.set('connection', 'close');
    return response;
  } catch { // immutable headers
    const headers = new Headers(response.headers);
    headers.set('connection', 'close');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/**
 * Reads and discards the rest of `incoming`'s body: true once it ended, false past `maxBytes`, after `idleMs`
 * without a byte, or when the connection closed. Readers the handler left (a Web stream over the request)
 * stop receiving chunks, so nothing is queued for them.
 */
export function drainBody(incoming: IncomingMessage, maxBytes: number, idleMs: number): Promise<boolean> {
  if (incoming.readableEnded) return Promise.resolve(true);
  if (incoming.destroyed) return Promise.resolve(false);
  for (const listener of incoming.listeners('data')) incoming.off('data', listener as (...args: unknown[]) => void);
  return new Promise((resolve) => {
    let read = 0;
    const done = (ended: boolean) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('close', onClose);
      if (!ended) incoming.pause();
      resolve(ended);
    };
    const timer = setTimeout(() => done(false), idleMs);
    const onData = (chunk: Buffer) => {
      read += chunk.byteLength;
      if (read > maxBytes) return done(false);
      timer.refresh();
    };
    const onEnd = () => done(true);
    const onClose = () => done(incoming.readableEnded);
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('close', onClose);
    incoming.resume();
  });
}

/**
 * Watches a body's arrival by its socket's byte count: `timedOut` resolves with the 408 answer (with
 * `Connection: close`) when it stalls or crawls, and the socket is ended once that answer is written.
 */
function watchBody(incoming: IncomingMessage, options: BodyGuardOptions): { timedOut: Promise<Response>; stop(): void; fired: boolean } {
  const idleMs = options.idleTimeoutMs ?? 0;
  const requestMs = options.requestTimeoutMs ?? 0;
  const minRate = options.minBytesPerSecond ?? DEFAULT_MIN_BYTES_PER_SECOND;
  const socket = incoming.socket;
  const started = Date.now();
  const firstBytes = socket.bytesRead;
  let lastBytes = firstBytes;
  let lastProgress = started;
  let timer: ReturnType<typeof setInterval> | undefined;
  const state = {
    fired: false,
    timedOut: new Promise<Response>((resolve) => {
      const every = Math.max(50, Math.min(1000, ...[idleMs, requestMs].filter((ms) => ms > 0).map((ms) => ms / 4)));
      const fire = (message: string) => {
        state.fired = true;
        clearInterval(timer);
        const response = closing(options.timeoutAnswer!(message));
        // Once the 408 is written the socket closes (Connection: close); a client that never reads it is cut too.
        const outgoing = socket as unknown as { once(event: 'close', f: () => void): void };
        const cut = setTimeout(() => socket.destroy(), 5_000);
        cut.unref();
        outgoing.once('close', () => clearTimeout(cut));
        resolve(response);
      };
      timer = setInterval(() => {
        if (incoming.complete || incoming.destroyed) return clearInterval(timer);
        const now = Date.now();
        const bytes = socket.bytesRead;
        // Bytes that arrived, or bytes waiting unread (the server is behind, not the client): progress.
        if (bytes !== lastBytes || incoming.readableLength > 0) {
          lastBytes = bytes;
          lastProgress = now;
        }
        if (idleMs > 0 && now - lastProgress >= idleMs) return fire(`No request body bytes arrived for ${seconds(idleMs)} s`);
        const elapsed = now - started;
        if (requestMs > 0 && elapsed >= requestMs && ((bytes - firstBytes) * 1000) / elapsed < minRate) {
          fire(`The request body took longer than ${seconds(requestMs)} s, arriving slower than ${minRate} bytes/s`);
        }
      }, every);
      timer.unref();
    }),
    stop: () => clearInterval(timer),
  };
  return state;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
