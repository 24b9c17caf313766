/**
 * Writing an SSE answer to a Node response without sending its headers in a packet of their own.
 * `@hono/node-server` writes the head of a streamed answer and flushes it at once, before the first
 * event; a relayed stream's first event is usually already there (the platform sends headers and first
 * event together), so the head waits for it, one turn of the event loop at most, and both leave in one
 * write. A first event that takes longer does not hold the head: it is flushed after that turn.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { bodyStreamOf } from '../proxy/buffered-body.js';

/** Whether `response` is an event stream with a body (the answers {@link writeEventStream} takes). */
export function isEventStreamAnswer(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').startsWith('text/event-stream') && bodyStreamOf(response) !== null;
}

/**
 * Writes `response` (an event stream) to `outgoing` and returns the answer telling `@hono/node-server`
 * that it was sent. The body is read as the socket drains; the client going away cancels it.
 */
export function writeEventStream(response: Response, outgoing: ServerResponse): Response {
  const reader = bodyStreamOf(response)!.getReader();
  const head: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    head[name] = value;
  });
  outgoing.writeHead(response.status, head);
  const cancel = () => void reader.cancel().catch(() => {});
  outgoing.on('close', cancel);
  outgoing.on('error', cancel);
  if (outgoing.destroyed) cancel(); // the client left while the answer was made: its `close` has passed
  let wrote = false;
  const first = reader.read();
  const flush = setImmediate(() => {
    if (!wrote && outgoing.writable) outgoing.flushHeaders();
  });
  const fail = (error: unknown) => {
    clearImmediate(flush);
    outgoing.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  const flow = ({ done, value }: ReadableStreamReadResult<Uint8Array>): void => {
    clearImmediate(flush);
    wrote = true;
    if (done) {
      outgoing.off('close', cancel);
      outgoing.off('error', cancel);
      outgoing.end();
    } else if (!outgoing.write(value)) outgoing.once('drain', () => void reader.read().then(flow, fail));
    else reader.read().then(flow, fail);
  };
  first.then(flow, fail);
  return alreadySent();
}

/**
 * The answer meaning "already written": `@hono/node-server`'s own sentinel. It must be a native
 * `Response` (the server replaces the global one with its own, which it would write again), so when
 * the module was first loaded after that replacement, an equivalent is made from the native class.
 */
function alreadySent(): Response {
  const replaced = Object.getPrototypeOf(globalThis.Response) as typeof Response | undefined;
  const native = typeof replaced === 'function' && replaced.name === 'Response' ? replaced : globalThis.Response;
  if (RESPONSE_ALREADY_SENT instanceof native && RESPONSE_ALREADY_SENT.constructor === native) return RESPONSE_ALREADY_SENT;
  return new native(null, { headers: { 'x-hono-already-sent': 'true' } });
}
