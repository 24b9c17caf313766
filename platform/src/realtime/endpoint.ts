/**
 * `GET /v1/audio/transcriptions/realtime?model=…` of the local platform: the realtime transcription WebSocket
 * (reference §5.3), served by an HTTP upgrade handler (the Node adapter's `upgrade` option) next to the fetch handler.
 *
 * - Auth, checked before the upgrade completes: `Authorization: Bearer <apiKey|adminKey>` (what the official SDK
 *   sends) or `x-api-key`, or a client secret from `POST /v1/client/sessions` in the subprotocols
 *   (`Sec-WebSocket-Protocol: realtime, rt_…`, what a browser can send); the chosen subprotocol is then `realtime`.
 *   Missing, unknown or expired → plain HTTP 401 with the platform's JSON error body, then the socket is closed.
 * - `model` (id or alias) must have `capabilities.audio_transcription_realtime`, else the socket is accepted and
 *   gets `error` code 400 then close 1008 (so a browser, which cannot read a refused handshake, sees why).
 *   A client secret minted for another model gets `error` code 403 then close 1008, for the same reason.
 * - The session itself: realtime/transcription-session.ts.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { UpgradeHandler } from 'parley-kit/server';
import type { RealtimeServerEvent } from 'parley-kit/types';
import { invalidModelMessage, unauthorized } from '../http/errors.js';
import type { TranscriptionCatalog } from '../engines/transcription/catalog.js';
import type { ClientSecretStore } from './client-secrets.js';
import { RealtimeTranscriptionSession, type RealtimeLimits } from './transcription-session.js';

export const REALTIME_TRANSCRIPTION_PATH = '/v1/audio/transcriptions/realtime';
/** Frames above this multiple of `maxMessageBytes` are not even read: ws closes the socket with 1009. */
const HARD_FRAME_FACTOR = 4;

export interface RealtimeTranscriptionEndpointOptions {
  /** API keys accepted as `Authorization: Bearer` or `x-api-key`. */
  keys: ReadonlySet<string>;
  secrets: ClientSecretStore;
  transcription: TranscriptionCatalog;
  limits: RealtimeLimits;
  report: (error: unknown) => void;
}

/** The upgrade handler, and `close()` that ends every open session (platform shutdown). */
export interface RealtimeTranscriptionEndpoint {
  handleUpgrade: UpgradeHandler;
  close(): Promise<void>;
}

/** The model this WebSocket and `POST /v1/client/sessions` need. */
export const REALTIME_MODEL_EXPECTATION = { kind: 'a realtime transcription model', capability: 'audio_transcription_realtime' } as const;
/** Why `model` is refused by this WebSocket. */
const notRealtimeModel = (model: string) => invalidModelMessage(model, REALTIME_MODEL_EXPECTATION);

function refuse(socket: Duplex): void {
  const body = JSON.stringify(unauthorized('Unauthorized: send a valid API key as Authorization: Bearer, or a client secret (rt_…) from POST /v1/client/sessions as the WebSocket subprotocol next to "realtime"').body);
  socket.end(`HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

const protocolsOf = (request: IncomingMessage) =>
  (request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);

export function realtimeTranscriptionEndpoint(options: RealtimeTranscriptionEndpointOptions): RealtimeTranscriptionEndpoint {
  const { keys, secrets, transcription, limits, report } = options;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxMessageBytes * HARD_FRAME_FACTOR,
    handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
  });
  const sessions = new Set<RealtimeTranscriptionSession>();
  const sockets = new Set<WebSocket>();

  /** Who is calling: `{}` for an API key, the secret's model for a client secret, undefined when refused. */
  async function authenticate(request: IncomingMessage): Promise<{ secretModel?: string } | undefined> {
    const bearer = request.headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    const headerKey = request.headers['x-api-key'];
    const key = bearer ?? (typeof headerKey === 'string' ? headerKey : undefined);
    if (key && keys.has(key)) return {};
    const secret = protocolsOf(request).find((p) => p.startsWith('rt_'));
    const grant = secret ? await secrets.verify(secret) : undefined;
    return grant ? { secretModel: grant.model } : undefined;
  }

  function rejectAfterAccept(ws: WebSocket, code: number, message: string): void {
    ws.send(JSON.stringify({ type: 'error', error: { message, code } } satisfies RealtimeServerEvent));
    // A close reason holds at most 123 bytes of UTF-8 (ws throws on more, e.g. for a model name in another script).
    let reason = message.slice(0, 100);
    while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
    ws.close(1008, reason);
  }

  const handleUpgrade: UpgradeHandler = (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== REALTIME_TRANSCRIPTION_PATH) return false;
    const accept = (caller: { secretModel?: string }) => wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      ws.once('close', () => sockets.delete(ws));
      const model = url.searchParams.get('model') ?? '';
      const resolved = model ? transcription.resolve(model) : undefined;
      if (!resolved?.card.capabilities.audio_transcription_realtime) {
        return rejectAfterAccept(ws, 400, model
          ? notRealtimeModel(model)
          : 'Missing model: give it in the URL, e.g. ?model=voxtral-mini-transcribe-realtime-2602');
      }
      if (caller.secretModel !== undefined && caller.secretModel !== resolved.card.id) {
        return rejectAfterAccept(ws, 403, `This client secret is for model ${caller.secretModel}, not ${model}`);
      }
      const session = new RealtimeTranscriptionSession(ws, resolved.engine, model, limits, report);
      sessions.add(session);
      ws.once('close', () => sessions.delete(session));
    });
    // Client secrets are in the database: the path is claimed now, the socket answered once the secret is checked.
    void authenticate(request).then((caller) => {
      if (!caller) return refuse(socket);
      accept(caller);
    }, (err) => {
      report(err);
      socket.destroy();
    });
    return true;
  };

  return {
    handleUpgrade,
    async close() {
      for (const session of sessions) session.shutdown();
      await Promise.all([...sockets].map((ws) => new Promise<void>((resolve) => {
        if (ws.readyState === ws.CLOSED) return resolve();
        ws.close(1001, 'Platform shutting down');
        // A peer that does not answer the close frame is cut off.
        const cut = setTimeout(() => ws.terminate(), 1000);
        ws.once('close', () => { clearTimeout(cut); resolve(); });
      })));
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
