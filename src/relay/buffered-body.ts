/**
 * Answers a host's upstream client already read whole (small JSON answers on Node), kept beside their
 * `Response` so the relay reads the bytes without a stream in between. Runtime-neutral: no Node imports.
 */
const bodies = new WeakMap<Response, Uint8Array>();

/** Remembers that `response`'s body is exactly `bytes`; returns the response. */
export function withBufferedBody(response: Response, bytes: Uint8Array): Response {
  bodies.set(response, bytes);
  return response;
}

/** The whole body of `response` when its client read it already, else undefined (read `response.body`). */
export function bufferedBodyOf(response: Response): Uint8Array | undefined {
  return bodies.get(response);
}
