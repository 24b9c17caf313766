/**
 * A {@link SpeechAudioStream} whose implementation is still loading (the speech code is a separate
 * chunk, fetched on first use): iteration, `usage` and `abort()` are forwarded once it is there.
 */
import type { SpeechAudioStream, SpeechFormat, SpeechUsage } from './contracts.js';

export class DeferredSpeechStream implements SpeechAudioStream {
  readonly format: SpeechFormat;
  readonly usage: Promise<SpeechUsage | null>;
  readonly #stream: Promise<SpeechAudioStream & { readonly aborted?: boolean }>;
  #loaded: (SpeechAudioStream & { readonly aborted?: boolean }) | null = null;
  #aborted = false;

  constructor(stream: Promise<SpeechAudioStream>, format: SpeechFormat) {
    this.format = format;
    this.#stream = stream.then((s) => {
      this.#loaded = s;
      if (this.#aborted) s.abort();
      return s;
    });
    this.usage = this.#stream.then((s) => s.usage, () => null);
  }

  /** Whether `abort()` was called (or the stream aborted itself: signal, leaving the loop). */
  get aborted(): boolean {
    return this.#aborted || !!this.#loaded?.aborted;
  }

  abort(): void {
    this.#aborted = true;
    this.#loaded?.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    let inner: AsyncIterator<Uint8Array> | null = null;
    const get = async () => (inner ??= (await this.#stream)[Symbol.asyncIterator]());
    return {
      next: async () => (this.#aborted ? { value: undefined, done: true } : (await get()).next()),
      return: async () => {
        this.abort();
        return { value: undefined, done: true };
      },
    };
  }
}
