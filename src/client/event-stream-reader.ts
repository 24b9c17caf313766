/**
 * Reading a response body's server-sent events with the client's one SSE library,
 * `@microsoft/fetch-event-source`, for the requests that do their own fetching (speech and
 * transcription streams: {@link SseRequestStream}).
 *
 * The library ends every read with `dispose()`, which touches `document` and `window` (absent under
 * Node and server-side rendering), so it is never let reach its ending: it reads a pass-through of the
 * body that reports the real body's end or failure here and then stays pending (the pattern
 * `conversation-stream.ts` uses for the same reason). Nothing holds that pending read once the stream
 * is dropped, so it is garbage collected. Isomorphic: no DOM, no Node built-ins.
 */
import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';

export type { EventSourceMessage };

/** A promise that never settles: what the library gets instead of an ending it cannot handle without a DOM. */
export const never = <T>() => new Promise<T>(() => {});

/**
 * Parses `body` as an event stream, calling `onMessage` for each event in order. Resolves when the body
 * ends (after every earlier event was delivered); rejects with the body's error when it breaks.
 * Cancelling the body's reader (held by the caller as `reader`) ends it.
 */
export function readEventStream(reader: ReadableStreamDefaultReader<Uint8Array>, onMessage: (message: EventSourceMessage) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (error) {
            reject(error);
            return never<void>();
          }
          if (result.done) {
            resolve();
            return never<void>();
          }
          controller.enqueue(result.value);
        },
        cancel: (reason) => reader.cancel(reason).catch(() => {}),
      },
      // Pull only when the parser asks, so the end is seen after every earlier chunk was parsed.
      { highWaterMark: 0 },
    );
    void fetchEventSource('http://event-stream.invalid/', {
      openWhenHidden: true,
      fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
      onopen: async () => {},
      onmessage: onMessage,
      // Unreachable (the body never ends into the library); throwing stops any library retry.
      onerror: (error) => {
        throw error;
      },
    }).catch(reject);
  });
}
