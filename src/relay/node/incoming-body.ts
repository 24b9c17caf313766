/**
 * Reading a Node request's whole (small) body straight from the `IncomingMessage`, with the same
 * guards as the Web path (`readCapped` over `rateGuardedBody`): a byte cap, an idle timeout and a
 * minimum average rate after a grace time. `@hono/node-server` builds a whole undici `Request` and two
 * Web streams the first time `request.body` is read, which costs more than the relay's own checks.
 */
import type { IncomingMessage } from 'node:http';
import { bodyDeadlines, type BodyRateLimits } from '../proxy/body-rate.js';

/** Limits of {@link readIncomingBody}: a byte cap (`too-large`) and the relay's body rate (`idle`, `slow`). */
export interface IncomingBodyLimits extends BodyRateLimits {
  maxBytes: number;
}

/** Why a body could not be read. */
export class IncomingBodyError extends Error {
  constructor(readonly reason: 'too-large' | 'idle' | 'slow' | 'closed') {
    super(`request body: ${reason}`);
  }
}

/** Reads the whole body of `incoming` (empty for GET and HEAD); rejects with {@link IncomingBodyError}. */
export function readIncomingBody(incoming: IncomingMessage, limits: IncomingBodyLimits): Promise<Uint8Array> {
  if (incoming.method === 'GET' || incoming.method === 'HEAD' || incoming.readableEnded) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const started = Date.now();
    let lastByte = started;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const finish = (error?: IncomingBodyError) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('close', onClose);
      incoming.off('error', onClose);
      if (!error) return resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
      incoming.pause();
      reject(error);
    };
    /** The same deadlines as `rateGuardedBody`: idle since the last byte, or the average below the minimum after the grace time. */
    const check = () => {
      const now = Date.now();
      // The whole read is waiting for the client: up to the last byte, `lastByte - started` of it.
      const { idleAt, slowAt } = bodyDeadlines(limits, total, lastByte, lastByte - started);
      if (now >= idleAt) return finish(new IncomingBodyError('idle'));
      if (now >= slowAt) return finish(new IncomingBodyError('slow'));
      timer = setTimeout(check, Math.min(idleAt, slowAt) - now);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limits.maxBytes) return finish(new IncomingBodyError('too-large'));
      chunks.push(chunk);
      lastByte = Date.now();
    };
    const onEnd = () => finish();
    const onClose = () => finish(new IncomingBodyError('closed'));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('close', onClose);
    incoming.on('error', onClose);
    check();
  });
}
