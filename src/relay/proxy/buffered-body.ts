/**
 * Answers a host's upstream client already read whole (small JSON answers on Node), kept beside their
 * `Response` so the relay reads the bytes without a stream in between; and streamed answers (event
 * streams on Node) whose chunks the relay reads straight from the host client ({@link bodyReaderOf}).
 * Runtime-neutral: no Node imports.
 */
const bodies = new WeakMap<Response, Uint8Array>();

/** Answers up to this declared size are read whole rather than streamed through. */
export const SMALL_ANSWER_BYTES = 64 * 1024;

/** Whether a declared `content-length` is at most {@link SMALL_ANSWER_BYTES}. */
export function isSmallLength(length: string | null | undefined): boolean {
  return length != null && /^\d{1,6}$/.test(length) && Number(length) <= SMALL_ANSWER_BYTES;
}

/** Remembers that `response`'s body is exactly `bytes`; returns the response. */
export function withBufferedBody(response: Response, bytes: Uint8Array): Response {
  bodies.set(response, bytes);
  return response;
}

/** The whole body of `response` when its client read it already, else undefined (read `response.body`). */
export function bufferedBodyOf(response: Response): Uint8Array | undefined {
  return bodies.get(response);
}

/** A body read chunk by chunk without a Web stream in between: what a host client's streamed answer offers. */
export interface BodySource {
  /** The next chunk, or `done` at the end; rejects when the body broke. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Stops the body (the connection is dropped); later reads end. */
  cancel(reason?: unknown): Promise<void>;
}

const sources = new WeakMap<Response, BodySource>();

/** Remembers that `response`'s body can be read straight from `source`; returns the response. */
export function withBodySource(response: Response, source: BodySource): Response {
  sources.set(response, source);
  return response;
}

/** Whether `response` has a body, asked without touching `response.body` (which a lightweight `Response` would build). */
export function hasBody(response: Response): boolean {
  return sources.has(response) || bodies.has(response) || response.body !== null;
}

/**
 * A reader of `response`'s body: its host client's source when it has one (one Web stream fewer per
 * chunk), else a reader of `response.body`. Either way the body is taken: read it only this way.
 */
export function bodyReaderOf(response: Response): BodySource {
  const source = sources.get(response);
  if (source) return source;
  if (!response.body) throw new TypeError('bodyReaderOf: the response has no body');
  return response.body.getReader();
}

const streams = new WeakMap<Response, ReadableStream<Uint8Array>>();

/** Remembers the stream `response` was made with (its body); returns the response. */
export function withBodyStream(response: Response, stream: ReadableStream<Uint8Array>): Response {
  streams.set(response, stream);
  return response;
}

/**
 * The body stream of `response` as it was made (see {@link withBodyStream}), else `response.body`. A host's
 * lightweight `Response` (`@hono/node-server`'s) builds a whole native one the first time `body` is read.
 */
export function bodyStreamOf(response: Response): ReadableStream<Uint8Array> | null {
  return streams.get(response) ?? response.body;
}
