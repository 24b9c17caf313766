/**
 * One engine run fed while audio arrives (the realtime WebSocket's engine side): PCM is queued for the engine
 * as it comes, utterances are reported as the engine's voice activity detection cuts them, with times on the
 * session's clock.
 *
 * `flush()` ("finish the utterance now") writes {@link FLUSH_SILENCE_SECONDS} of silence straight after the audio,
 * faster than real time, so pocketsphinx's VAD (which cuts after ≈0.5 s without speech) ends the utterance at once;
 * the silence is taken out of the reported times. Measured on this machine for fox.wav sent at real-time pace:
 * utterance text ≈180–220 ms after the last audio with the silence burst, the same as ending the process (≈180 ms),
 * against ≈570 ms when silence only follows at real-time pace. The burst keeps the process (no ≈0.7 s model reload
 * for the next utterance, no second engine slot), so it is the one used.
 */
import { EventQueue } from 'parley-kit/wire';
import { TRANSCRIPTION_SAMPLE_RATE, type TranscriptionEngine, type Utterance } from '../engines/transcription/types.js';

/** Silence written by `flush()`: enough for pocketsphinx's VAD to cut (0.5 s) plus its 2,048-sample read blocks. */
export const FLUSH_SILENCE_SECONDS = 1;

export class LiveTranscription {
  private readonly feed = new EventQueue<Int16Array>();
  /** Engine-clock sample positions where silence was inserted, and how much. */
  private readonly inserted: Array<{ at: number; samples: number }> = [];
  private fed = 0;
  private speechSinceFlush = false;
  /** Resolves after the last utterance was reported; rejects when the engine fails. */
  readonly finished: Promise<void>;

  /**
   * Starts the engine at once (its model loads while the client gets ready). `onUtterance` gets each
   * utterance with times in seconds of the audio appended so far.
   */
  constructor(engine: TranscriptionEngine, signal: AbortSignal, onUtterance: (u: Utterance) => void) {
    const audio: AsyncIterable<Int16Array> = { [Symbol.asyncIterator]: () => ({ next: () => this.feed.next() }) };
    const utterances = engine.transcribe({ audio, signal });
    this.finished = (async () => {
      for await (const u of utterances) {
        onUtterance({
          ...u,
          start: this.sessionTime(u.start),
          end: this.sessionTime(u.end),
          words: u.words.map((w) => ({ ...w, start: this.sessionTime(w.start), end: this.sessionTime(w.end) })),
        });
      }
    })();
  }

  /** Queues 16 kHz mono s16 PCM for the engine. */
  append(pcm: Int16Array): void {
    if (!pcm.length) return;
    this.feed.push(pcm);
    this.fed += pcm.length;
    this.speechSinceFlush = true;
  }

  /** Makes the engine finish the current utterance now (nothing happens when no audio came since the last flush). */
  flush(): void {
    if (!this.speechSinceFlush) return;
    const samples = FLUSH_SILENCE_SECONDS * TRANSCRIPTION_SAMPLE_RATE;
    this.inserted.push({ at: this.fed, samples });
    this.feed.push(new Int16Array(samples));
    this.fed += samples;
    this.speechSinceFlush = false;
  }

  /** No more audio: the engine finishes the last utterance and `finished` resolves. */
  end(): void {
    this.feed.end();
  }

  /** Engine time → time in the audio the client sent (inserted silence taken out). */
  private sessionTime(engineSeconds: number): number {
    const position = engineSeconds * TRANSCRIPTION_SAMPLE_RATE;
    let removed = 0;
    for (const { at, samples } of this.inserted) {
      if (at >= position) break;
      removed += Math.min(samples, position - at);
    }
    return Math.max(0, position - removed) / TRANSCRIPTION_SAMPLE_RATE;
  }
}
