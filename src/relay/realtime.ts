/**
 * The relay's realtime transcription WebSocket: `GET {base}/v1/audio/transcriptions/realtime?model=…`
 * upgraded on Node (an `UpgradeHandler` for `serveFetch`). Before anything is accepted: exact path,
 * Origin (cross-site WebSocket hijacking), a one-time ticket in `Sec-WebSocket-Protocol`
 * (`realtime, rt_…`: signed, unexpired, this model, session not revoked, never used before) and the
 * session's stream cap; refusals are plain HTTP answers and no upstream connection is made. Then
 * the upstream socket is opened with the relay's key (never seen by the page), the page's socket is
 * accepted with subprotocol `realtime`, and text frames are piped both ways: page messages only
 * when they are one of the four client message types and valid, under caps on frame size, total
 * audio, session length and idle time, each answered with an `error` event and a close. Floods are
 * held by realtime-guard.ts: a message rate and an invalid-message cap per session (close 1008), and
 * backpressure (a page that does not read its replies is not read either, then closed).
 *
 * `ws` is loaded on the first upgrade, so the relay's fetch handler stays free of Node modules.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket as NodeWebSocket, WebSocketServer } from 'ws';
import * as v from 'valibot';
import type { RealtimeErrorEvent } from '../client/types.js';
import type { UpgradeHandler } from '../server/node-serve.js';
import { RelayError, badRequest, forbidden, internalError, unauthorized, upstreamError } from './errors.js';
import { KB, MB, isValidParam } from './proxy/route-table.js';
import { openStreamSlot, type StreamSlot } from './proxy/limits.js';
import { scrubKey } from './proxy/scrub.js';
import type { RealtimeLimits, RelayRuntime } from './runtime.js';
import type { TicketClaims } from './sessions/session-tokens.js';
import { DEFAULT_REALTIME_FLOOD_LIMITS, createRealtimeGuards, type RealtimeGuards, type SocketGuard } from './realtime-guard.js';
import { createBackpressure } from '../server/socket-flow.js';
import { RELAY_RESTARTING } from './drain.js';
import { refusalReason, type RefusalReason } from './watch.js';
import { requestIdFrom } from '../server/request-id.js';

/** Default realtime caps. */
export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = {
  maxFrameBytes: 256 * KB,
  maxAudioBytes: 64 * MB,
  maxSessionMs: 30 * 60_000,
  idleTimeoutMs: 60_000,
  revocationCheckMs: 5_000,
  ...DEFAULT_REALTIME_FLOOD_LIMITS,
};

/** How long a page socket closed for a flood or a stall may take to finish its close handshake before it is cut, ms. */
const CLOSE_GRACE_MS = 2_000;

/** The realtime path under the relay's base path (also the upstream path). */
export const REALTIME_PATH = '/v1/audio/transcriptions/realtime';
/** The subprotocol the page asks for next to its ticket, and that the relay accepts. */
export const REALTIME_PROTOCOL = 'realtime';

const AudioFormat = v.object({
  encoding: v.picklist(['pcm_s16le', 'pcm_s32le', 'pcm_f16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw']),
  sample_rate: v.pipe(v.number(), v.integer(), v.minValue(1000), v.maxValue(384_000)),
});
/** The four client messages; unknown fields are dropped before forwarding (valibot's object strips them). */
const ClientMessage = v.variant('type', [
  v.object({
    type: v.literal('session.update'),
    session: v.object({
      audio_format: v.optional(AudioFormat),
      target_streaming_delay_ms: v.nullish(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000))),
    }),
  }),
  v.object({ type: v.literal('input_audio.append'), audio: v.pipe(v.string(), v.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')) }),
  v.object({ type: v.literal('input_audio.flush') }),
  v.object({ type: v.literal('input_audio.end') }),
]);
const CLIENT_TYPES = new Set<string>(ClientMessage.options.map((o) => o.entries.type.literal));

/** Close codes the relay sends. */
const CLOSE = { normal: 1000, goingAway: 1001, policy: 1008, tooBig: 1009, upstream: 1011 } as const;

/**
 * How one realtime upgrade ended, for a host that watches (metrics, the access log): accepted (101) or refused
 * (the HTTP status written on the raw socket, with its refusal reason), after `ownMs` of the relay's own checks.
 */
export interface UpgradeOutcome {
  request: IncomingMessage;
  socket: Duplex;
  /** A trusted proxy's sane `X-Request-Id`, else a new UUID (as for requests). */
  requestId: string;
  status: number;
  refusal: RefusalReason | null;
  /** The relay's own time until the answer, ms (the upstream handshake excluded). */
  ownMs: number;
  /** Time the upstream handshake took, ms (0: none was made). */
  upstreamMs: number;
}

/** The relay's realtime side: its upgrade handler (open sockets are registered in `runtime.openStreams`). */
export interface RealtimeEndpoint {
  handleUpgrade: UpgradeHandler;
  /** Calls `listener` once per realtime upgrade taken, when it is accepted or refused; returns the unlink. */
  observeUpgrades(listener: (outcome: UpgradeOutcome) => void): () => void;
}

/** Creates the relay's realtime endpoint: takes exactly the realtime path, leaves every other upgrade. */
export function createRealtimeEndpoint(runtime: RelayRuntime): RealtimeEndpoint {
  const path = runtime.basePath + REALTIME_PATH;
  let server: Promise<{ wss: WebSocketServer; WebSocket: typeof NodeWebSocket }> | null = null;
  const load = () => (server ??= import('ws').then(({ WebSocketServer, WebSocket }) => ({
    // The hard cap (ws closes with 1009 by itself); the soft cap below answers an error event first.
    wss: new WebSocketServer({ noServer: true, maxPayload: runtime.realtime.maxFrameBytes * 4, handleProtocols: () => REALTIME_PROTOCOL }),
    WebSocket,
  })));

  const guards = createRealtimeGuards(runtime.realtime);
  const observers = new Set<(outcome: UpgradeOutcome) => void>();
  const handleUpgrade: UpgradeHandler = (request, socket, head) => {
    const target = request.url ?? '';
    const q = target.indexOf('?');
    // Exact, case-sensitive raw path: `%2F`, `//`, `;`, trailing `/` and case variants are someone else's (or 404).
    if ((q < 0 ? target : target.slice(0, q)) !== path) return false;
    const started = performance.now();
    // As for requests: also sent upstream (the platform's handshake), and the access log's `request_id`.
    const timing = { upstreamMs: 0, requestId: requestIdFrom(runtime.trustedHops > 0 ? header(request, 'x-request-id') : null) };
    const told = (status: number, refusal: RefusalReason | null) => {
      if (!observers.size) return;
      const outcome: UpgradeOutcome = {
        request, socket, requestId: timing.requestId, status, refusal,
        ownMs: Math.max(0, performance.now() - started - timing.upstreamMs), upstreamMs: timing.upstreamMs,
      };
      for (const observer of observers) observer(outcome);
    };
    void accept(runtime, load, guards, request, socket, head, q < 0 ? '' : target.slice(q + 1), timing).then(
      (accepted) => { if (accepted) told(101, null); },
      (error: unknown) => {
        if (!(error instanceof RelayError)) runtime.report(error);
        const answer = error instanceof RelayError ? error : internalError();
        refuse(socket, answer);
        told(answer.status, refusalReason(answer));
      },
    );
    return true;
  };
  return {
    handleUpgrade,
    observeUpgrades(listener) {
      observers.add(listener);
      return () => observers.delete(listener);
    },
  };
}

/**
 * Checks the upgrade, opens the upstream, then accepts the page's socket and pipes. Throws a RelayError to refuse;
 * resolves true once the page's socket is accepted, false when the page left first (or ws refused its handshake).
 */
async function accept(
  runtime: RelayRuntime,
  load: () => Promise<{ wss: WebSocketServer; WebSocket: typeof NodeWebSocket }>,
  guards: RealtimeGuards,
  request: IncomingMessage, socket: Duplex, head: Buffer, query: string,
  timing: { upstreamMs: number; requestId: string },
): Promise<boolean> {
  const model = modelOf(query);
  const origin = header(request, 'origin');
  const scheme = (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  if (origin && !runtime.isAllowedOrigin(origin, new URL(`${scheme}://${header(request, 'host') ?? 'localhost'}/`))) {
    throw forbidden('This origin may not open realtime sessions', 'origin_not_allowed');
  }
  const ticket = await checkTicket(runtime, header(request, 'sec-websocket-protocol'), model, origin);
  const slot = await openStreamSlot(runtime.store, ticket.sid, ticket.concurrentStreams, runtime.report);
  let wss: WebSocketServer;
  let upstream: NodeWebSocket;
  try {
    const ws = await load();
    wss = ws.wss;
    upstream = new ws.WebSocket(upstreamRealtimeUrl(runtime.upstream.webSocketBaseUrl(), model), {
      headers: { authorization: `Bearer ${runtime.upstream.apiKey}`, 'x-request-id': timing.requestId },
      handshakeTimeout: runtime.upstreamTimeoutMs,
      perMessageDeflate: false,
    });
  } catch (error) {
    slot.release();
    throw error;
  }
  const early: string[] = [];
  const onEarly = (data: RawData, isBinary: boolean) => {
    if (!isBinary) early.push(data.toString());
  };
  upstream.on('message', onEarly);
  const pageGone = () => {
    slot.release();
    upstream.terminate();
  };
  socket.once('close', pageGone);

  const handshake = performance.now();
  const opened = await new Promise<RelayError | null>((resolve) => {
    upstream.once('open', () => resolve(null));
    upstream.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(upstreamRefusal(res.statusCode ?? 502));
    });
    // `on`, not `once`: an error with no listener would throw; after the pipe takes over, its own listener reports.
    upstream.on('error', () => resolve(upstreamError(502)));
  });
  timing.upstreamMs = performance.now() - handshake;
  if (opened) {
    socket.off('close', pageGone);
    slot.release();
    upstream.terminate();
    throw opened;
  }
  if (socket.destroyed) return false;
  // `pageGone` stays until the page socket is accepted: ws answers a malformed handshake 400 without calling back.
  let accepted = false;
  wss.handleUpgrade(request, socket, head, (page) => {
    accepted = true;
    socket.off('close', pageGone);
    upstream.off('message', onEarly);
    pipe(runtime, page, upstream, slot, early, ticket, guards.open(ticket.sid));
  });
  return accepted;
}

/** The page's answer when the platform refuses the upstream handshake: its 4xx as is, else 502 in the relay's words. */
function upstreamRefusal(status: number): RelayError {
  if (status === 401 || status === 403) return upstreamError(502, 'The relay could not authenticate to the platform', 'upstream_auth_failed');
  if (status >= 500 || status < 400) return upstreamError(502);
  return new RelayError(status, `The platform refused the realtime session (${status})`, 'invalid_request_error', 'upstream_refused');
}

/** The `model` query parameter, alone (anything else in the query is refused). */
function modelOf(query: string): string {
  const params = new URLSearchParams(query);
  const keys = [...params.keys()];
  const model = params.get('model');
  if (keys.length !== 1 || keys[0] !== 'model' || !model || !isValidParam('model_id', model)) {
    throw badRequest('The realtime URL takes exactly one query parameter: model');
  }
  return model;
}

/** Verifies the ticket of `Sec-WebSocket-Protocol: realtime, rt_…` and uses it up. */
async function checkTicket(runtime: RelayRuntime, protocols: string | undefined, model: string, origin: string | undefined): Promise<TicketClaims> {
  const offered = (protocols ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const tickets = offered.filter((p) => p.startsWith('rt_'));
  if (!offered.includes(REALTIME_PROTOCOL) || tickets.length !== 1) {
    throw unauthorized('Open the socket with subprotocols [\'realtime\', <client_secret.value>] from POST /v1/client/sessions');
  }
  const claims = await runtime.tokens.verifyTicket(tickets[0]!);
  if (!claims) throw unauthorized('The realtime ticket is invalid or expired');
  if (claims.model !== model) throw unauthorized(`The realtime ticket is for model '${claims.model}'`);
  // A ticket minted by a page is only good for a socket that page opens.
  if (claims.origin && claims.origin !== origin) throw forbidden('This ticket belongs to another origin', 'origin_mismatch');
  if (await runtime.store.isRevoked([claims.sid], { subject: claims.sub, issuedAt: claims.iat })) throw unauthorized('The session was revoked');
  const ttl = Math.max(1, claims.exp - Math.floor(runtime.now() / 1000)) + 60;
  if (!(await runtime.store.useOnce(`ticket:${claims.jti}`, ttl))) throw unauthorized('The realtime ticket was already used');
  return claims;
}

/** `{ws base}/v1/audio/transcriptions/realtime?model=…`, keeping a base path prefix. */
export function upstreamRealtimeUrl(webSocketBaseUrl: string, model: string): string {
  const url = new URL(webSocketBaseUrl);
  url.pathname = url.pathname.replace(/\/+$/, '') + REALTIME_PATH;
  url.search = '';
  url.hash = '';
  url.searchParams.set('model', model);
  return url.href;
}

/** The upstream WebSocket base derived from an HTTP base URL (`http` → `ws`, `https` → `wss`). */
export function webSocketBaseOf(httpBaseUrl: string): string {
  return httpBaseUrl.replace(/^http(s?):/i, 'ws$1:');
}

/** Pipes an accepted page socket and an open upstream socket until either closes. */
function pipe(runtime: RelayRuntime, page: NodeWebSocket, upstream: NodeWebSocket, slot: StreamSlot, early: string[], ticket: TicketClaims, guard: SocketGuard): void {
  const limits = runtime.realtime;
  const key = runtime.upstream.apiKey;
  let audioBytes = 0;
  let done = false;
  // Idleness is checked by one timer re-armed when it fires, not one timer per message (floods).
  let lastActive = performance.now();
  let idle: ReturnType<typeof setTimeout> | undefined;
  let cut: ReturnType<typeof setTimeout> | undefined;

  const finish = () => {
    if (done) return false;
    done = true;
    clearTimeout(idle);
    clearTimeout(longest);
    unregister();
    slot.release();
    guard.release();
    flow.stop();
    return true;
  };
  const unregister = runtime.openStreams.add({
    sessionId: ticket.sid, subject: ticket.sub, issuedAt: ticket.iat,
    end: () => fail(401, 'The session was revoked', CLOSE.policy),
    // Draining (drain.ts): a socket cannot move, so it has the drain time to end; then 1001 "going away".
    goAway: () => fail(503, RELAY_RESTARTING, CLOSE.goingAway),
  });
  /**
   * Answers an error event, then closes both sides. A page that broke a flood cap is no longer read;
   * either side that has not finished its close handshake after a grace is cut (no 30 s wait).
   */
  const fail = (code: number, message: string, closeCode: number, flood = false) => {
    if (!finish()) return;
    sendError(page, code, message);
    page.close(closeCode, message.slice(0, 120));
    if (flood) page.pause();
    upstream.close(CLOSE.normal);
    cut = setTimeout(() => {
      page.terminate();
      upstream.terminate();
    }, CLOSE_GRACE_MS);
    cut.unref?.();
  };
  const watchIdle = (ms: number) => {
    idle = setTimeout(() => {
      const quiet = performance.now() - lastActive;
      if (quiet < limits.idleTimeoutMs) return watchIdle(limits.idleTimeoutMs - quiet);
      fail(408, `The session was idle for ${Math.round(limits.idleTimeoutMs / 1000)} s`, CLOSE.policy);
    }, ms);
  };
  const touch = () => {
    lastActive = performance.now();
  };
  const longest = setTimeout(() => fail(408, `The session reached its limit of ${Math.round(limits.maxSessionMs / 1000)} s`, CLOSE.policy), limits.maxSessionMs);
  watchIdle(limits.idleTimeoutMs);
  const flow = createBackpressure(page, upstream, limits, () => {
    fail(408, `The page did not read its messages for ${Math.round(limits.stallTimeoutMs / 1000)} s`, CLOSE.policy, true);
  });
  /** Send callback: a write finished, so a paused side may be read again. */
  const sent = () => flow.check();

  const toPage = (text: string) => {
    // The key is never sent to a page, even if an upstream message were to echo it.
    page.send(scrubKey(text, key), sent);
    flow.check();
  };
  /** An invalid message: an error event, or the close once the session sent too many. */
  const refuse = (code: number, message: string) => {
    const over = guard.invalid();
    if (over) return fail(over.status, over.message, CLOSE.policy, true);
    sendError(page, code, message, sent);
    flow.check();
  };
  for (const text of early) toPage(text);

  upstream.on('message', (data, isBinary) => {
    if (done || isBinary) return;
    touch();
    toPage(data.toString());
  });
  page.on('message', (data, isBinary) => {
    if (done) return;
    touch();
    const over = guard.admit();
    if (over) return fail(over.status, over.message, CLOSE.policy, true);
    const size = byteLength(data);
    if (size > limits.maxFrameBytes) return fail(413, `Messages are limited to ${limits.maxFrameBytes} bytes`, CLOSE.tooBig);
    if (isBinary) return refuse(400, 'Send JSON text messages (audio goes base64 in input_audio.append)');
    let value: unknown;
    try {
      value = JSON.parse(data.toString());
    } catch {
      return refuse(400, 'Messages must be JSON');
    }
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !CLIENT_TYPES.has(type)) return refuse(400, `Unknown message type '${String(type).slice(0, 60)}'`);
    const parsed = v.safeParse(ClientMessage, value);
    if (!parsed.success) return refuse(422, `Invalid ${type}: ${parsed.issues.map((i) => `${v.getDotPath(i) || 'message'} ${i.message}`).join('; ')}`);
    if (parsed.output.type === 'input_audio.append') {
      audioBytes += Math.floor(parsed.output.audio.length * 3 / 4);
      if (audioBytes > limits.maxAudioBytes) return fail(413, `A session may send at most ${limits.maxAudioBytes} bytes of audio`, CLOSE.policy);
    }
    upstream.send(JSON.stringify(parsed.output), sent);
    flow.check();
  });

  page.on('close', () => {
    finish();
    clearTimeout(cut);
    if (upstream.readyState === upstream.OPEN) upstream.close(CLOSE.normal);
    else upstream.terminate();
  });
  upstream.on('close', (code) => {
    if (!finish()) return;
    // 1005: closed without a status, as a normal end is by some servers.
    if (code === CLOSE.normal || code === 1005) page.close(CLOSE.normal);
    else {
      sendError(page, 502, 'The platform ended the realtime session');
      page.close(CLOSE.upstream, 'upstream closed');
    }
  });
  upstream.on('error', (error) => {
    runtime.report(error);
    fail(502, 'The platform connection failed', CLOSE.upstream);
  });
  page.on('error', () => {
    finish();
    upstream.terminate();
  });
}

function sendError(page: NodeWebSocket, code: number, message: string, sent?: () => void): void {
  const event: RealtimeErrorEvent = { type: 'error', error: { message, code } };
  if (page.readyState === page.OPEN) page.send(JSON.stringify(event), sent);
}

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Writes a refusal as a plain HTTP answer on the raw socket (no upgrade happened). */
/** Answers an upgrade with `error` (as JSON) and closes the socket. */
export function refuse(socket: Duplex, error: RelayError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(error.body);
  const extra = Object.entries(error.headers).filter(([k]) => k !== 'connection').map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${error.status} ${error.status === 401 ? 'Unauthorized' : error.status === 403 ? 'Forbidden' : error.status === 429 ? 'Too Many Requests' : error.status === 503 ? 'Service Unavailable' : 'Error'}\r\n`
    + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n${extra}\r\n${body}`,
  );
}
