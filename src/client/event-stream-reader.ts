/**
 * The client's one SSE library, `@microsoft/fetch-event-source`, kept from its ending. The library ends
 * every read with `dispose()`, which touches `document` and `window` (absent under Node and server-side
 * rendering), so it reads {@link endlessBody}: a pass-through of the body that reports the real body's end
 * or failure to the caller and then stays pending. Nothing holds that pending read once the stream is
 * dropped, so it is garbage collected. Conversation streams (conversation-stream.ts) give it to the
 * library's own request; {@link readEventStream} parses a body already fetched (the speech and
 * transcription streams, `SseRequestStream`). Isomorphic: no DOM, no Node built-ins.
 */
import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';

export type { EventSourceMessage };

/** A promise that never settles: what the library gets instead of an ending it cannot handle without a DOM. */
export const never = <T>() => new Promise<T>(() => {});

/**
 * What fetch-event-source reads instead of a response body: `reader`'s chunks, one read at a time (only when
 * the parser asks, so the end is seen after every earlier chunk was parsed). The real body's end
 * (`onEnd(null)`) or failure (`onEnd(error)`) is reported to the caller, and the library's read then stays
 * pending, so it never reaches its ending. `beforeRead` runs before each read (an idle watchdog).
 */
export function endlessBody(reader: ReadableStreamDefaultReader<Uint8Array>, onEnd: (error: unknown) => void, beforeRead?: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        let result: ReadableStreamReadResult<Uint8Array>;
        beforeRead?.();
        try {
          result = await reader.read();
        } catch (error) {
          onEnd(error);
          return never<void>();
        }
        if (result.done) {
          onEnd(null);
          return never<void>();
        }
        controller.enqueue(result.value);
      },
      cancel: (reason) => reader.cancel(reason).catch(() => {}),
    },
    { highWaterMark: 0 },
  );
}

/**
 * Parses `body` as an event stream, calling `onMessage` for each event in order. Resolves when the body
 * ends (after every earlier event was delivered); rejects with the body's error when it breaks.
 * Cancelling the body's reader (held by the caller as `reader`) ends it.
 */
export function readEventStream(reader: ReadableStreamDefaultReader<Uint8Array>, onMessage: (message: EventSourceMessage) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const body = endlessBody(reader, (error) => (error === null ? resolve() : reject(error)));
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
