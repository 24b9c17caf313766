/** Server-sent events of the audio routes, written by a pull-driven stream so the engine follows the client's pace. */
const encoder = new TextEncoder();

/** One event: an `event:` line and `type` repeated in its JSON data. */
export const sseEvent = (type: string, data: Record<string, unknown>): Uint8Array =>
  encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

/** A 200 `text/event-stream` answer over `stream`, unbuffered by proxies. */
export const sseResponse = (stream: ReadableStream<Uint8Array>): Response =>
  new Response(stream, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
  });
