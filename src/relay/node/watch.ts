/**
 * Watching a relay on Node: per request, the metrics (metrics.ts) and one JSON access-log line, from the
 * relay's record (watch.ts) and the client connection. The line is written when the answer ends (an event
 * stream's too), so it has the whole duration and the bytes; it never holds a path, a query, a header value,
 * a key, a token or a body: the route's name stands for the path, and the client address only with
 * `logAddresses`.
 *
 *   {"time":"2026-11-28T09:30:00.123Z","request_id":"…","method":"POST","route":"conversations.start","status":200,
 *    "duration_ms":812.4,"relay_ms":0.61,"upstream_ms":35.2,"bytes_in":412,"bytes_out":5120,"refusal":null,
 *    "session":null,"completed":true}
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { UpgradeHandler } from '../../server/node-serve.js';
import type { RelayEnv } from '../proxy/client-address.js';
import type { RequestRecord } from '../watch.js';
import type { RelayMetrics } from './metrics.js';
import type { UpgradeOutcome } from '../realtime.js';
import { isEventStreamAnswer } from './write-event-stream.js';

/** What to watch: metrics, the access log, or both. */
export interface RelayWatchOptions {
  metrics?: RelayMetrics;
  /** Receives each access-log line (JSON, newline-terminated); e.g. `(line) => process.stdout.write(line)`. */
  accessLog?: (line: string) => void;
  /** Put the client address (after `trustProxy`) in each line as `client` (default false: addresses are personal data). */
  logAddresses?: boolean;
}

/** Hooks of the Node adapter. */
export interface RelayWatcher {
  /** Called as a request arrives; the returned function gets the answer once the relay has it. */
  begin(method: string, socket: Socket | undefined, outgoing: ServerResponse | undefined, env: RelayEnv): (response: Response) => void;
  /**
   * Wraps the realtime upgrade handler: with `observe` (the relay's `observeUpgrades`), each upgrade is a request of
   * route `realtime` (status 101 or its refusal, the refusal reason, one access-log line when the socket closes), and
   * accepted ones are open sockets; their bytes are counted either way.
   */
  upgrade(handler: UpgradeHandler, observe?: (listener: (outcome: UpgradeOutcome) => void) => () => void): UpgradeHandler;
}

const METHOD = /^[A-Z]{1,12}$/;

export function createRelayWatcher(options: RelayWatchOptions): RelayWatcher {
  const { metrics, accessLog, logAddresses = false } = options;
  /** Per keep-alive connection, its byte counts when its last request ended. */
  const counted = new WeakMap<Socket, { read: number; written: number }>();
  /** One access-log line (requests and realtime upgrades alike), written when the answer or the socket ends. */
  const logLine = (record: RequestRecord, method: string, status: number, started: number, bytesIn: number, bytesOut: number, completed: boolean) => {
    if (!accessLog) return;
    const line: Record<string, unknown> = {
      time: new Date().toISOString(), request_id: record.requestId, method: METHOD.test(method) ? method : 'OTHER', route: record.route, status,
      duration_ms: round(performance.now() - started), relay_ms: round(record.ownMs), upstream_ms: round(record.upstreamMs),
      bytes_in: bytesIn, bytes_out: bytesOut, refusal: record.refusal, session: record.session, completed,
    };
    if (logAddresses) line.client = record.clientIp;
    accessLog(`${JSON.stringify(line)}\n`);
  };
  return {
    begin(method, socket, outgoing, env) {
      const started = performance.now();
      // From where the connection's previous request ended: its headers and body were read before this handler ran.
      const read0 = socket ? counted.get(socket)?.read ?? 0 : 0;
      const written0 = socket ? counted.get(socket)?.written ?? socket.bytesWritten : 0;
      env.record = null; // asks the relay for its record
      return (response) => {
        const record: RequestRecord = env.record ?? {
          requestId: response.headers.get('x-request-id') ?? '', route: 'unknown', refusal: null, session: null, ownMs: performance.now() - started, upstreamMs: 0, clientIp: '',
        };
        const status = response.status;
        const streaming = isEventStreamAnswer(response);
        if (metrics) {
          metrics.request(record.route, status, record.ownMs, record.upstreamMs);
          if (record.refusal) metrics.refusal(record.refusal);
          if (record.session) metrics.session(record.session);
          if (record.route === 'streams.resume' && status === 200) metrics.resume();
          if (streaming) metrics.openStreams(1);
        }
        const ended = () => {
          const bytesIn = socket ? socket.bytesRead - read0 : 0;
          const bytesOut = socket ? socket.bytesWritten - written0 : 0;
          if (socket) counted.set(socket, { read: socket.bytesRead, written: socket.bytesWritten });
          if (metrics) {
            metrics.bytes(bytesIn, bytesOut);
            if (streaming) metrics.openStreams(-1);
          }
          logLine(record, method, status, started, bytesIn, bytesOut, outgoing ? outgoing.writableFinished : true);
        };
        if (outgoing && !outgoing.destroyed) outgoing.once('close', ended);
        else ended();
      };
    },
    upgrade(handler, observe) {
      /** Per upgraded socket, its byte counts and time when the upgrade arrived. */
      const arrived = new WeakMap<Duplex, { read0: number; written0: number; head: number; started: number }>();
      observe?.((outcome) => {
        const socket = outcome.socket as Socket;
        const at = arrived.get(socket) ?? { read0: 0, written0: 0, head: 0, started: performance.now() };
        const accepted = outcome.status === 101;
        if (metrics) {
          metrics.request('realtime', outcome.status, outcome.ownMs, outcome.upstreamMs);
          if (outcome.refusal) metrics.refusal(outcome.refusal);
          if (accepted) metrics.openSockets(1);
        }
        const ended = () => {
          const bytesIn = (socket.bytesRead ?? 0) - at.read0 + at.head;
          const bytesOut = (socket.bytesWritten ?? 0) - at.written0;
          if (metrics) {
            metrics.bytes(bytesIn, bytesOut);
            if (accepted) metrics.openSockets(-1);
          }
          logLine({
            requestId: outcome.requestId, route: 'realtime', refusal: outcome.refusal, session: null, ownMs: outcome.ownMs, upstreamMs: outcome.upstreamMs,
            clientIp: outcome.request.socket.remoteAddress ?? '',
          }, 'GET', outcome.status, at.started, bytesIn, bytesOut, true);
        };
        if (socket.destroyed) ended();
        else socket.once('close', ended);
      });
      return (request, duplex, head) => {
        const socket = duplex as Socket;
        arrived.set(duplex, { read0: socket.bytesRead ?? 0, written0: socket.bytesWritten ?? 0, head: head.length, started: performance.now() });
        return handler(request, duplex, head);
      };
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
