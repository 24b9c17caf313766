/**
 * Reading a whole body with a byte cap, shared by the relay and the local platform; and the byte join
 * under it ({@link joinChunks}), which the relay's stream readers use too.
 */

/** The body grew past the cap; reading stopped there and the stream was cancelled. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Body is larger than ${limit} bytes`);
  }
}

/** Reads a whole body, counting bytes as they arrive; past `maxBytes` it cancels the stream and throws {@link BodyTooLargeError}. */
export async function readCapped(body: ReadableStream<Uint8Array> | null | undefined, maxBytes: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      void reader.cancel('body too large').catch(() => {});
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return joinChunks(chunks, total);
}

/** `chunks` (of `length` bytes in all) in one new array. */
export function joinChunks(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}
