/**
 * The platform's answer turned into the page's: upstream failures in the relay's words (nothing of their
 * body passes), event streams relayed (streams/event-stream.ts: resumable, ended by a revocation or a user
 * stop, ownership learned from the first event), small answers read whole (errors scrubbed, created
 * conversations recorded, model lists filtered to the session's models), anything else passed through
 * with the key scrubbed.
 */
import { SMALL_ANSWER_BYTES, bodyReaderOf, hasBody, isSmallLength, withBodyStream, type BodySource } from './buffered-body.js';
import { RelayError, clientClosed, unauthorized, upstreamError } from '../errors.js';
import { conversationErrorFrame, genericErrorFrame, relayResumableEventStream, type RelayedEventStream } from '../streams/event-stream.js';
import { CUT_BY_RESTART } from '../drain.js';
import { downstreamHeaders, readUpstreamText } from './forward.js';
import { conversationIdOfEvent, conversationIdOfJson, recordOwner } from './conversations.js';
import { whenClientGone, type Exchange, type ForwardJob } from './exchange.js';
import { ANY, isAllowed } from '../sessions/policy.js';
import { newStreamId } from '../streams/resumable.js';
import { createKeyScrubber, type KeyScrubber } from './scrub.js';

/** The reason a stream ends with when its user stopped it (`DELETE {base}/streams/{id}`). */
const streamStopped = () => new RelayError(499, 'The reply was stopped', 'invalid_request_error', 'stream_stopped');

/** Turns the upstream answer into the client answer; when that fails, the client link is undone (see {@link Exchange}). */
export async function answer(job: ForwardJob, response: Response, exchange: Exchange): Promise<Response> {
  try {
    return await answerOf(job, response, exchange);
  } catch (err) {
    exchange.detach();
    throw err;
  }
}

async function answerOf(job: ForwardJob, response: Response, { controller, detach }: Exchange): Promise<Response> {
  const { runtime, route, claims, slot } = job;
  const status = response.status;

  // Upstream failures are answered in the relay's words: nothing of the upstream body reaches the client.
  if (status >= 500 || status === 401 || (status >= 300 && status < 400)) {
    void response.body?.cancel().catch(() => {});
    slot?.release();
    detach();
    const error = status >= 500
      ? upstreamError([500, 502, 503, 504].includes(status) ? status : 502)
      : upstreamError(502, 'The relay could not authenticate to the platform', 'upstream_auth_failed');
    const retryAfter = response.headers.get('retry-after');
    if (retryAfter && /^\d{1,6}$/.test(retryAfter)) error.headers['retry-after'] = retryAfter;
    throw error;
  }

  const headers = downstreamHeaders(response.headers, runtime.upstream.apiKey);
  const creates = route.conversation === 'creates' || route.conversation === 'owned+creates';
  const isEventStream = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');

  if (isEventStream && status === 200 && hasBody(response)) {
    headers.set('x-accel-buffering', 'no');
    // Resumable (resumable.ts): a stream id, ids on events, the events kept; the page going away no longer
    // aborts the upstream (it is read on into the buffer), only a user stop (DELETE) or a revocation does.
    const resume = runtime.resume;
    const streamId = resume ? newStreamId() : undefined;
    const buffer = resume && streamId ? resume.buffers.start(streamId, claims.sid) : null;
    if (streamId) headers.set('parley-stream-id', streamId);
    // From here this function, not the exchange, decides what the page going away does.
    detach();
    // Registered while open: a revocation of the session (or of its subject) ends it, on every instance.
    const stop = new AbortController();
    // A revocation or a user stop may come from another request: it settles a promise, and the abort runs as its reaction, in
    // this request's own context (workerd refuses to abort this request's I/O from another request's handler).
    let ended!: (reason: RelayError) => void;
    void new Promise<RelayError>((resolve) => { ended = resolve; }).then((reason) => stop.abort(reason));
    let unlinkClient = () => {};
    // On a host that ends a request's I/O with its client (workerd), the reply is read on only while the
    // host is told to wait for it.
    let settle = () => {};
    if (buffer && job.state.env?.waitUntil) job.state.env.waitUntil(new Promise<void>((resolve) => { settle = resolve; }));
    let relayed: RelayedEventStream | undefined;
    const unregister = runtime.openStreams.add({
      sessionId: claims.sid, subject: claims.sub, issuedAt: claims.iat,
      end: () => ended(unauthorized('The session was revoked')),
      // Draining (drain.ts): the page resumes elsewhere while the upstream is read on; at the deadline it ends.
      handOver: () => relayed?.detach() ?? false,
      goAway: () => relayed?.goAway(CUT_BY_RESTART),
    });
    if (streamId) resume!.running.set(streamId, { sessionId: claims.sid, stop: () => ended(streamStopped()) });
    relayed = relayResumableEventStream(bodyReaderOf(response), {
      heartbeatMs: runtime.heartbeatMs,
      idleTimeoutMs: runtime.streamIdleTimeoutMs,
      errorFrame: route.streamErrorEvent === 'conversation' ? conversationErrorFrame : genericErrorFrame,
      onFirstEvent: creates
        ? (event) => recordOwner(runtime, conversationIdOfEvent(event), claims.sid).catch(runtime.report)
        : undefined,
      abortUpstream: () => controller.abort(),
      scrubber: createKeyScrubber(runtime.upstream.apiKey),
      stop: stop.signal,
      streamId,
      buffer,
      onEnd: () => {
        settle();
        unlinkClient();
        unregister();
        if (streamId) resume!.running.delete(streamId);
        slot?.release();
      },
    });
    // The client going away: a resumable stream reads on (detached); any other ends (workerd never cancels a
    // body whose client left, it only aborts `request.signal`).
    unlinkClient = whenClientGone(job.state, () => { if (!relayed!.detach()) stop.abort(clientClosed()); });
    return withBodyStream(new Response(relayed.body, { status, headers }), relayed.body);
  }
  slot?.release();

  const filterModels = route.special === 'list-models' && !claims.models.includes(ANY) && status === 200;
  if (status >= 400 || creates || filterModels) {
    // Small answers read whole: errors (scrubbed), created conversations (to learn the id), model lists (to filter).
    let text = await readUpstreamText(response, runtime.upstream.apiKey);
    detach();
    if (status === 200 && creates) await recordOwner(runtime, conversationIdOfJson(text), claims.sid);
    if (filterModels) text = filterModelList(text, claims.models);
    return new Response(text, { status, headers });
  }
  const conversationId = job.params.conversation_id;
  if (route.method === 'DELETE' && status < 300 && conversationId) await runtime.store.forgetConversation(conversationId);
  // (`response.body` is not touched here: a host client's small answer has its bytes beside it, see buffered-body.ts.)
  if (status !== 204 && status !== 304 && isSmallJson(response.headers)) {
    // Read whole (scrubbed) and answered in one write: cheaper than passing a stream through for a few bytes.
    const text = await readUpstreamText(response, runtime.upstream.apiKey, SMALL_ANSWER_BYTES);
    detach();
    return new Response(text, { status, headers });
  }
  if (status === 204 || status === 304 || !hasBody(response)) {
    detach();
    return new Response(null, { status, headers });
  }
  return new Response(trackEnd(bodyReaderOf(response), createKeyScrubber(runtime.upstream.apiKey), detach, () => controller.abort()), { status, headers });
}

/** A JSON answer whose declared length is at most {@link SMALL_ANSWER_BYTES}. */
function isSmallJson(headers: Headers): boolean {
  return isSmallLength(headers.get('content-length')) && /^application\/json\b/i.test(headers.get('content-type') ?? '');
}

/** Keeps only the model cards (by id or alias) the session may use. */
function filterModelList(text: string, allowed: string[]): string {
  try {
    const list = JSON.parse(text) as { data?: Array<{ id?: string; aliases?: string[] }> };
    if (Array.isArray(list.data)) {
      list.data = list.data.filter((m) => [m.id ?? '', ...(m.aliases ?? [])].some((name) => isAllowed(allowed, name)));
    }
    return JSON.stringify(list);
  } catch {
    throw upstreamError(502, 'The platform answered a model list the relay could not read');
  }
}

/**
 * Passes a body through with the key scrubbed out; calls `onDone` when it ends, and `onCancel` when
 * the client stops reading.
 */
function trackEnd(reader: BodySource, scrubber: KeyScrubber, onDone: () => void, onCancel: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          onDone();
          const rest = scrubber.flush();
          if (rest.length) controller.enqueue(rest);
          controller.close();
        } else {
          const passed = scrubber.push(value);
          if (passed.length) controller.enqueue(passed);
        }
      } catch (err) {
        onDone();
        controller.error(err);
      }
    },
    cancel(reason) {
      onDone();
      onCancel();
      void reader.cancel(reason).catch(() => {});
    },
  });
}
