/**
 * `{base}/streams/{streamId}`: resuming and stopping a relayed SSE answer (resumable.ts keeps its events).
 *
 *   GET     with the session token and optional `Last-Event-ID: <streamId>:<seq>` → 200 SSE: the kept
 *           events after that seq, then the live rest, ending when the stream ended. 410 `stream_gone`
 *           for an unknown, expired, stopped, overflowed or foreign stream (one answer for all, so the
 *           id's existence does not leak); 400 `invalid_last_event_id` for a malformed id or a seq the
 *           stream does not have; 429 `too_many_resumes` beyond the resumes per stream.
 *   DELETE  the user stopped the reply: the upstream is aborted on whichever instance runs it and the
 *           buffer dropped. 204 whatever the id (unknown or foreign ids are left alone).
 *
 * Both take the session's request bucket like any call. A resume is registered as an open stream, so
 * a revocation ends it like the stream it reads.
 */
import { preflightResponse } from '../proxy/cors.js';
import { authenticate } from '../sessions/credentials.js';
import { RelayError, badRequest, forbidden, methodNotAllowed, unauthorized } from '../errors.js';
import { joinBytes } from '../bytes.js';
import { conversationErrorFrame, genericErrorFrame } from './event-stream.js';
import { limitRequest } from '../proxy/limits.js';
import { isStreamId, type BufferRead, type BufferedEvent } from './resumable.js';
import { whenClientGone } from '../proxy/exchange.js';
import type { RelayRuntime, RequestState } from '../runtime.js';
import { CUT_BY_RESTART } from '../drain.js';

export const streamGone = () => new RelayError(410, 'This reply can no longer be resumed.', 'invalid_request_error', 'stream_gone');
const invalidLastEventId = () => badRequest('Last-Event-ID must be <streamId>:<seq> of an event of this stream', 'invalid_last_event_id');
const tooManyResumes = (max: number) =>
  new RelayError(429, `Too many resumes of this stream at once (limit ${max})`, 'rate_limit_error', 'too_many_resumes', { 'retry-after': '1' });

/** How long a resume waits for a seq the page has seen but the store has not yet kept (a write in flight), ms. */
const CATCH_UP_MS = 1000;
/** Longest single wait between reads of a live stream, ms (so a closed resume notices soon). */
const WAIT_MS = 250;
const PING = new TextEncoder().encode(': ping\n\n');

/** Answers `{base}/streams/{streamId}` (`streamId` as it came in the path). */
export async function handleStreamRequest(runtime: RelayRuntime, state: RequestState, streamId: string): Promise<Response> {
  const { request } = state;
  const method = request.method;
  if (method === 'OPTIONS') return preflightResponse(state.origin, state.originAllowed, ['GET', 'DELETE']);
  if (method !== 'GET' && method !== 'DELETE') throw methodNotAllowed(['GET', 'DELETE']);
  if (state.origin && !state.originAllowed) throw forbidden('This origin may not call the relay', 'origin_not_allowed');
  const claims = await authenticate(runtime, state);
  await limitRequest(runtime.store, state.address, claims.sid, claims.limits, runtime.addressLimits);
  const resume = runtime.resume;

  if (method === 'DELETE') {
    if (resume && isStreamId(streamId)) {
      const local = resume.running.get(streamId);
      if (local && local.sessionId === claims.sid) local.stop();
      await resume.buffers.stop(streamId, claims.sid);
    }
    return new Response(null, { status: 204 });
  }

  const header = request.headers.get('last-event-id');
  let after = 0;
  if (header !== null) {
    const match = /^(.+):(\d{1,15})$/.exec(header.trim());
    if (!match || match[1] !== streamId) throw invalidLastEventId();
    after = Number(match[2]);
  }
  if (!resume || !isStreamId(streamId)) throw streamGone();
  let first = await resume.buffers.read(streamId, claims.sid, after);
  // The page may have an event the store is still writing (Redis): wait a moment for it before saying 400.
  for (const deadline = Date.now() + CATCH_UP_MS; first.kind === 'events' && after > first.last && !first.ended && Date.now() < deadline;) {
    await resume.buffers.waitForMore(streamId, first.last, 50);
    first = await resume.buffers.read(streamId, claims.sid, after);
  }
  if (first.kind === 'gone') throw streamGone();
  if (after > first.last) throw invalidLastEventId();
  if (!inOrder(first.events, after)) throw streamGone();

  const slotKey = `resumes:${streamId}`;
  const slotId = await runtime.store.openStream(slotKey, resume.limits.maxResumesPerStream);
  if (slotId === null) throw tooManyResumes(resume.limits.maxResumesPerStream);

  const { buffers } = resume;
  const sessionId = claims.sid;
  let queue = first.events;
  let last = first.last;
  let ended = first.ended;
  let closed = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let silentSince = performance.now();
  let frameOf = errorFrameOf(queue[0]);

  const finish = () => {
    if (closed) return false;
    closed = true;
    unregister();
    unlinkClient();
    runtime.store.closeStream(slotKey, slotId).catch(runtime.report);
    return true;
  };
  /** Ends the page's side: with an error event first (revocation, relay going away), or cleanly (so the page resumes elsewhere). */
  const endWith = (message?: string, code?: number) => {
    if (!finish()) return false;
    try {
      if (message !== undefined) controller.enqueue(new TextEncoder().encode(frameOf(message, code)));
      controller.close();
    } catch { /* already closed */ }
    return true;
  };
  // A revocation ends the resume like any open stream: an error event, then the end. A draining relay lets the
  // page go (the buffer is shared, drain.ts: it resumes on another instance), or at its deadline ends it.
  const unregister = runtime.openStreams.add({
    sessionId, subject: claims.sub, issuedAt: claims.iat,
    end: () => { endWith('The session was revoked', unauthorized().status); },
    handOver: () => endWith(),
    goAway: () => { endWith(CUT_BY_RESTART, 503); },
  });
  let unlinkClient = () => {};
  unlinkClient = whenClientGone(state, () => {
    if (!finish()) return;
    try { controller.close(); } catch { /* cancelled */ }
  });

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      try {
        for (;;) {
          if (closed) return;
          if (queue.length) {
            const chunk = joinBytes(queue.map((e) => e.bytes));
            after = queue[queue.length - 1]!.seq;
            queue = [];
            silentSince = performance.now();
            c.enqueue(chunk);
            return;
          }
          if (ended && after >= last) {
            finish();
            c.close();
            return;
          }
          const silent = performance.now() - silentSince;
          if (silent >= runtime.heartbeatMs) {
            silentSince = performance.now();
            c.enqueue(PING.slice());
            return;
          }
          if (after >= last) await buffers.waitForMore(streamId, after, Math.min(WAIT_MS, runtime.heartbeatMs - silent));
          if (closed) return;
          const next: BufferRead = await buffers.read(streamId, sessionId, after);
          if (closed) return;
          if (next.kind === 'gone' || !inOrder(next.events, after)) {
            // Events are missing now (stopped, overflowed, expired): a broken stream, so the page asks again and learns 410.
            finish();
            c.error(new Error('This reply can no longer be resumed.'));
            return;
          }
          queue = next.events;
          last = next.last;
          ended = next.ended;
          if (queue[0]) frameOf = errorFrameOf(queue[0]);
        }
      } catch (error) {
        if (!finish()) return;
        if (!(error instanceof RelayError)) runtime.report(error);
        c.error(error);
      }
    },
    cancel() {
      finish();
    },
  }, { highWaterMark: 0 });

  const headers = new Headers({ 'content-type': 'text/event-stream', 'parley-stream-id': streamId, 'x-accel-buffering': 'no' });
  return new Response(body, { status: 200, headers });
}

/** Whether `events` follow `after` without a gap. */
function inOrder(events: BufferedEvent[], after: number): boolean {
  return events.every((event, i) => event.seq === after + i + 1);
}

const EVENT_FIELD = new TextEncoder().encode('event:');

/**
 * The error frame of a stream, told by one of its events: conversation streams name their events
 * (`event: …`, then `conversation.response.error` is theirs), completion streams send bare `data:` lines.
 */
function errorFrameOf(event: BufferedEvent | undefined): (message: string, code?: number) => string {
  const bytes = event?.bytes;
  if (!bytes || bytes.length < EVENT_FIELD.length) return genericErrorFrame;
  for (let i = 0; i < EVENT_FIELD.length; i++) if (bytes[i] !== EVENT_FIELD[i]) return genericErrorFrame;
  return conversationErrorFrame;
}
