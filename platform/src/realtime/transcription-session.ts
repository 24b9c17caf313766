/**
 * One realtime transcription WebSocket session (reference §5.3), after the upgrade was authorised.
 *
 * Server → client: `session.created` first (after checking the engine); `session.updated` answering
 * `session.update`; while audio streams, `transcription.language` once before the first text, then per utterance
 * the engine cuts one `transcription.text.delta` (a leading space between utterances, as the file route) and one
 * `transcription.segment`; after `input_audio.end`, `transcription.done` (model, text, language, segments, usage)
 * and a 1000 close.
 *
 * Errors are `{type:"error", error:{message, code}}`. They leave the session open unless said otherwise:
 * - 400 text that is not JSON, a binary frame, an unknown `type`, `session.update` after the first audio,
 *   anything after `input_audio.end`;
 * - 422 a message of the wrong shape (an unsupported encoding or sample rate, `audio` not base64…);
 * - 413 a frame larger than `maxMessageBytes` (dropped; ws itself closes with 1009 above 4× that);
 * - 408 then close 1008: no message for `idleTimeoutMs`, or the session lasted `maxSessionMs`;
 * - 429 then close 1008: more than `messageBurst` messages at once above `messagesPerSecond`; 400 then close
 *   1008: more than `maxInvalidMessages` refused messages (the 400/413/422 above). Such a client is no longer read
 *   and is cut if it does not answer the close at once. A client that does not read what it is sent (more than
 *   `maxBufferedBytes` waiting) is not read either, and gets 408 and close 1008 after `stallTimeoutMs` of that;
 * - 503 then close 1011: the engine is not installed (the message names the install command) or busy (close 1013);
 * - 500 then close 1011: the engine failed.
 */
import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { TokenBucket, createBackpressure, type RealtimeFloodLimits } from 'parley-kit/server';
import type { RealtimeAudioFormat, RealtimeServerEvent, RealtimeSessionInfo } from 'parley-kit/types';
import { issuesToDetail } from '../http/validation.js';
import { Transcript } from '../engines/transcription/transcript.js';
import { TranscriptionEngineBusyError, TranscriptionEngineUnavailableError, type TranscriptionEngine, type Utterance } from '../engines/transcription/types.js';
import { DEFAULT_REALTIME_FORMAT, REALTIME_ENCODINGS, REALTIME_SAMPLE_RATES, RealtimeAudioDecoder } from './realtime-audio.js';
import { LiveTranscription } from './live-transcription.js';

/** Limits of one session (PlatformOptions `realtime*`). */
export interface RealtimeLimits {
  /** No client message for this long → error 408 and close. */
  idleTimeoutMs: number;
  /** Sessions last at most this long → error 408 and close. */
  maxSessionMs: number;
  /** Larger frames get error 413 and are dropped. */
  maxMessageBytes: number;
  /** Flood caps (PlatformOptions `realtimeFlood`; defaults: parley-kit/server's `DEFAULT_REALTIME_FLOOD_LIMITS`). */
  flood: RealtimeFloodLimits;
}

/** How long a client closed for a flood may take to answer the close before it is cut, ms. */
const CLOSE_GRACE_MS = 2_000;

/**
 * What `session.created` announces as `target_streaming_delay_ms`: about when pocketsphinx cuts an utterance
 * (0.5 s without speech). A value sent with `session.update` is echoed; the engine cannot be tuned by it.
 */
export const DEFAULT_STREAMING_DELAY_MS = 500;

const LANGUAGE = 'en';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const SessionUpdateSchema = z.looseObject({
  type: z.literal('session.update'),
  session: z.looseObject({
    audio_format: z.looseObject({
      encoding: z.enum(REALTIME_ENCODINGS),
      sample_rate: z.union(REALTIME_SAMPLE_RATES.map((r) => z.literal(r))),
    }).optional(),
    target_streaming_delay_ms: z.number().int().min(0).max(10_000).nullable().optional(),
  }),
});
const AppendSchema = z.looseObject({
  type: z.literal('input_audio.append'),
  audio: z.string().regex(BASE64, 'Input should be base64-encoded audio bytes'),
});

/** Why a message was refused, as one line ("session.audio_format.sample_rate: Input should be …"). */
function describe(result: z.ZodSafeParseError<unknown>, value: unknown): string {
  return issuesToDetail(result.error.issues, value, []).map((d) => `${d.loc.join('.') || 'message'}: ${d.msg}`).join('; ');
}

export class RealtimeTranscriptionSession {
  private readonly abort = new AbortController();
  private readonly transcript = new Transcript({ granularities: ['segment'], diarize: false });
  private readonly info: RealtimeSessionInfo;
  private readonly timers: NodeJS.Timeout[] = [];
  private idle: NodeJS.Timeout | undefined;
  private live: LiveTranscription | undefined;
  private decoder: RealtimeAudioDecoder | undefined;
  private languageSent = false;
  private ended = false;
  /** session.created was sent: messages are served as they come (before, they wait for it, in order). */
  private up = false;
  private invalid = 0;
  private readonly bucket: TokenBucket;
  private readonly flow: ReturnType<typeof createBackpressure>;
  /** Send callback: a write finished, so a client paused for backpressure may be read again. */
  private readonly sent = () => this.flow.check();
  private readonly started: Promise<boolean>;

  /** Takes over `ws`: checks the engine, announces the session and serves it until the socket closes. */
  constructor(
    private readonly ws: WebSocket,
    private readonly engine: TranscriptionEngine,
    model: string,
    private readonly limits: RealtimeLimits,
    private readonly report: (error: unknown) => void,
  ) {
    this.info = { request_id: randomUUID().replace(/-/g, ''), model, audio_format: { ...DEFAULT_REALTIME_FORMAT }, target_streaming_delay_ms: DEFAULT_STREAMING_DELAY_MS };
    const { flood } = limits;
    this.bucket = new TokenBucket(flood.messagesPerSecond, flood.messageBurst, performance.now());
    this.flow = createBackpressure(ws, undefined, flood, () => this.flooded(408, `Session closed: the client did not read its messages for ${Math.round(flood.stallTimeoutMs / 1000)} s`));
    ws.on('close', () => this.stop());
    ws.on('error', () => this.stop());
    // Messages sent before session.created are served, in order, once the session is up (at most a burst of them).
    ws.on('message', (data, isBinary) => {
      if (this.abort.signal.aborted) return;
      if (!this.bucket.take(performance.now())) {
        return this.flooded(429, `Session closed: too many messages (at most ${flood.messagesPerSecond} a second, ${flood.messageBurst} at once)`);
      }
      if (this.up) this.onMessage(data, isBinary);
      else void this.started.then((ok) => { if (ok) this.onMessage(data, isBinary); });
    });
    this.started = this.start();
  }

  /** Closes the socket (platform shutting down). */
  shutdown(): void {
    this.close(1001, 'Platform shutting down');
  }

  private async start(): Promise<boolean> {
    try {
      await this.engine.ready();
    } catch (err) {
      this.engineFailed(err);
      return false;
    }
    if (this.abort.signal.aborted) return false;
    this.live = new LiveTranscription(this.engine, this.abort.signal, (u) => this.onUtterance(u));
    this.live.finished.then(() => this.finish(), (err) => this.engineFailed(err));
    this.send({ type: 'session.created', session: this.info });
    this.timers.push(setTimeout(() => this.fail(408, `Session closed: it reached the maximum length of ${Math.round(this.limits.maxSessionMs / 1000)} s`, 1008), this.limits.maxSessionMs));
    this.touch();
    // Messages that came before are served by `started`'s callbacks, which run before any later message.
    this.up = true;
    return true;
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    this.touch();
    const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
    if (bytes > this.limits.maxMessageBytes) {
      return this.refuse(413, `Message of ${bytes} bytes is larger than the limit of ${this.limits.maxMessageBytes} bytes; send audio in smaller input_audio.append chunks`);
    }
    if (isBinary) return this.refuse(400, 'Binary frames are not supported: send JSON text messages, with audio as base64 in input_audio.append');
    let message: unknown;
    try {
      message = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    } catch (err) {
      return this.refuse(400, `Message is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const type = message !== null && typeof message === 'object' && !Array.isArray(message) ? (message as { type?: unknown }).type : undefined;
    if (typeof type !== 'string') return this.refuse(422, 'Message should be a JSON object with a string type');
    if (this.ended) return this.refuse(400, `'${type}' after input_audio.end: the audio has ended and the transcription is finishing`);
    switch (type) {
      case 'session.update': return this.update(message);
      case 'input_audio.append': return this.append(message);
      case 'input_audio.flush': return this.live?.flush();
      case 'input_audio.end': return this.end();
      default: return this.refuse(400, `Unknown message type '${type}'; expected session.update, input_audio.append, input_audio.flush or input_audio.end`);
    }
  }

  private update(message: unknown): void {
    if (this.decoder) return this.refuse(400, 'session.update is only accepted before the first input_audio.append');
    const parsed = SessionUpdateSchema.safeParse(message);
    if (!parsed.success) return this.refuse(422, describe(parsed, message));
    const { audio_format, target_streaming_delay_ms } = parsed.data.session;
    if (audio_format) this.info.audio_format = { encoding: audio_format.encoding, sample_rate: audio_format.sample_rate } satisfies RealtimeAudioFormat;
    if (target_streaming_delay_ms !== undefined) this.info.target_streaming_delay_ms = target_streaming_delay_ms;
    this.send({ type: 'session.updated', session: this.info });
  }

  private append(message: unknown): void {
    const parsed = AppendSchema.safeParse(message);
    if (!parsed.success) return this.refuse(422, describe(parsed, message));
    this.decoder ??= new RealtimeAudioDecoder(this.info.audio_format);
    this.live?.append(this.decoder.push(Buffer.from(parsed.data.audio, 'base64')));
  }

  private end(): void {
    this.ended = true;
    clearTimeout(this.idle);
    if (this.decoder) this.live?.append(this.decoder.end());
    this.live?.end();
  }

  private onUtterance(u: Utterance): void {
    if (!this.languageSent) {
      this.languageSent = true;
      this.send({ type: 'transcription.language', audio_language: LANGUAGE });
    }
    const { delta, segments } = this.transcript.add(u);
    this.send({ type: 'transcription.text.delta', text: delta });
    for (const s of segments) this.send({ type: 'transcription.segment', text: s.text, start: s.start, end: s.end, speaker_id: null });
  }

  /** The engine finished: after `input_audio.end` that is the answer; before it, the engine stopped on its own. */
  private finish(): void {
    if (this.abort.signal.aborted) return;
    if (!this.ended) return this.engineFailed(new Error('The speech-to-text engine stopped before input_audio.end'));
    this.send({ type: 'transcription.done', ...this.transcript.result(this.info.model, LANGUAGE, this.decoder?.seconds ?? 0) });
    this.close(1000, 'Transcription done');
  }

  private engineFailed(err: unknown): void {
    if (this.abort.signal.aborted) return;
    if (err instanceof TranscriptionEngineUnavailableError) return this.fail(503, err.message, 1011);
    if (err instanceof TranscriptionEngineBusyError) return this.fail(503, err.message, 1013);
    this.report(err);
    this.fail(500, 'Internal error: the speech-to-text engine failed', 1011);
  }

  /** Resets the idle timer (it does not run once the audio has ended: the engine is finishing). */
  private touch(): void {
    clearTimeout(this.idle);
    if (this.ended || this.abort.signal.aborted) return;
    this.idle = setTimeout(() => this.fail(408, `Session closed: no message for ${Math.round(this.limits.idleTimeoutMs / 1000)} s`, 1008), this.limits.idleTimeoutMs);
  }

  private send(event: RealtimeServerEvent): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(event), this.sent);
    this.flow.check();
  }

  private error(code: number, message: string): void {
    this.send({ type: 'error', error: { message, code } });
  }

  /** A refused message: its error event, or the close once the session sent too many. */
  private refuse(code: number, message: string): void {
    if (this.abort.signal.aborted) return;
    if (++this.invalid > this.limits.flood.maxInvalidMessages) {
      return this.flooded(400, `Session closed: too many invalid messages (more than ${this.limits.flood.maxInvalidMessages})`);
    }
    this.error(code, message);
  }

  /** Closes a flooding (or not reading) client with 1008: it is no longer read, and cut if it does not answer the close. */
  private flooded(code: number, message: string): void {
    if (this.abort.signal.aborted) return;
    this.fail(code, message, 1008);
    this.ws.pause();
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  private fail(code: number, message: string, closeCode: number): void {
    this.error(code, message);
    this.close(closeCode, message.slice(0, 100));
  }

  private close(code: number, reason: string): void {
    this.stop();
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
  }

  /** Stops the engine (its feed ends too, so a run not yet started cannot wait for audio forever) and the timers (idempotent). */
  private stop(): void {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    this.flow.stop();
    this.live?.end();
    clearTimeout(this.idle);
    for (const t of this.timers) clearTimeout(t);
  }
}
