/**
 * A {@link SpeechAudioStream} whose implementation is still loading (the speech code is a separate
 * chunk, fetched on first use): iteration, `usage` and `abort()` are forwarded once it is there.
 */
import type { SpeechAudioStream, SpeechFormat, SpeechUsage } from './contracts.js';
import { DeferredStream } from './deferred-stream.js';

export class DeferredSpeechStream extends DeferredStream<Uint8Array, SpeechAudioStream> implements SpeechAudioStream {
  readonly usage: Promise<SpeechUsage | null>;

  constructor(stream: Promise<SpeechAudioStream>, readonly format: SpeechFormat) {
    super(stream);
    this.usage = this.loading.then((s) => s.usage, () => null);
  }
}
