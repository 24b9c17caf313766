/**
 * One checked request's call to the platform (proxy.ts decided it may go): the client going away cancels
 * it until the answer is complete, a streamed upload is guarded as it passes (upload.ts), and the host's
 * own client is used when the relay has no fetch of its own. The answer is answer.ts's.
 */
import { clientClosed } from '../errors.js';
import { callUpstream, upstreamRequestHeaders } from './forward.js';
import { LazyAbortController } from './lazy-abort.js';
import type { StreamSlot } from './limits.js';
import { upstreamUrl, type RelayRoute } from './route-table.js';
import { audioFormRules, guardUpload, missingBoundary, type GuardedUpload, type UploadChecks } from '../uploads/upload.js';
import type { RelayRuntime, RequestState } from '../runtime.js';
import type { SessionClaims } from '../sessions/session-tokens.js';

/** One request on its way upstream: what was decided about it so far. */
export interface ForwardJob {
  runtime: RelayRuntime;
  state: RequestState;
  route: RelayRoute;
  params: Record<string, string>;
  claims: SessionClaims;
  /** The JSON body, read and checked (absent for bodiless and streamed-upload routes). */
  body: Uint8Array | undefined;
  slot: StreamSlot | null;
}

/** The upstream side of a job: its abort controller and the client-abort link. */
export interface Exchange {
  /** Its signal is made only if a Web stream or `fetch` asks for it (lazy-abort.ts). */
  controller: LazyAbortController;
  /** Unlinks the client's abort signal: called once the upstream answer is complete (completion is not an abort). */
  detach: () => void;
}

/**
 * Sends a checked request upstream: returns the upstream answer (headers in) and the exchange, which
 * answer.ts finishes. Throws when there is no usable answer (the client link already undone).
 */
export async function forward(job: ForwardJob): Promise<{ response: Response; exchange: Exchange }> {
  const { runtime, state, route } = job;
  const { request } = state;
  const controller = new LazyAbortController();
  // The client going away cancels the upstream request, until the upstream answer is complete.
  const onClientGone = () => controller.abort(clientClosed());
  const exchange: Exchange = { controller, detach: whenClientGone(state, onClientGone) };

  // A streamed upload is counted, timed and (transcription) scanned as it passes; see upload.ts.
  let counted: GuardedUpload | undefined;
  if (route.body?.kind === 'multipart' && request.body) {
    try {
      counted = await guardUpload(request.body, uploadChecks(job), (error) => controller.abort(error));
    } catch (err) {
      exchange.detach();
      throw err;
    }
  }
  const url = upstreamUrl(runtime.upstream.baseUrl, route, job.params, state.url.searchParams);
  const headers = upstreamRequestHeaders(request, runtime.upstream.apiKey);
  headers['x-request-id'] = state.requestId;
  const build = () => new Request(url, {
    method: route.method,
    headers,
    body: counted ? counted.stream : job.body,
    signal: controller.signal,
    redirect: 'manual',
    ...(counted ? { duplex: 'half' } : {}),
  } as RequestInit);
  // The host's own client (Node: keep-alive node:http), when the relay was given no fetch of its own.
  const hostSend = runtime.upstream.hostClient ? state.env?.upstreamSend : undefined;
  const send = hostSend && (() => hostSend({
    url, method: route.method, headers, body: counted ? counted.stream : job.body, abort: controller,
    // For a host client that reads the signal: made then, not before.
    get signal() { return controller.signal; },
  }));

  const started = performance.now();
  let response: Response;
  try {
    response = await callUpstream({
      build, send, controller, fetch: runtime.upstream.fetch, retryable: !counted,
      timeoutMs: runtime.upstreamTimeoutMs, retryDelayMs: runtime.retryDelayMs,
    });
  } catch (err) {
    exchange.detach();
    if (counted?.failure) throw counted.failure;
    throw err;
  } finally {
    state.upstreamMs += performance.now() - started;
  }
  if (counted?.failure) {
    // The upstream answered before noticing the cut body: the upload still failed.
    exchange.detach();
    controller.abort();
    void response.body?.cancel().catch(() => {});
    throw counted.failure;
  }

  return { response, exchange };
}

/**
 * Calls `listener` once when the client goes away (at once when it is gone already): through the host's
 * hook when it has one (Node), else `request.signal`. Returns the unlink.
 */
export function whenClientGone(state: RequestState, listener: () => void): () => void {
  const hook = state.env?.onClientGone;
  if (hook) return hook(listener);
  const signal = state.request.signal;
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** What a streamed upload is checked for: its cap, its pace and, for transcription, its form. */
function uploadChecks({ runtime, state, route, claims }: ForwardJob): UploadChecks {
  const checks: UploadChecks = { maxBytes: route.body!.maxBytes, rate: runtime.bodyRate };
  if (route.upload === 'audio-form') {
    const form = audioFormRules(state.request.headers.get('content-type'), claims.models, runtime);
    if (!form) throw missingBoundary();
    checks.form = form;
  }
  return checks;
}
