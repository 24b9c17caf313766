// VoiceComposer without a DOM: each microphone it opens is a run of its LatestRun, so whatever an abandoned
// microphone reports late (its opening, its stop, its events) changes nothing. The turns themselves are
// tested in Chromium (test/browser/agent-chat-voice.test.ts, with a VoiceInput double too).
import { describe, expect, test } from 'vitest';
import { LatestRun } from '../../../src/client/latest-run.js';
import { VoiceComposer } from '../../../src/elements/agent-chat/voice-composer.js';
import type { VoiceComposerHost } from '../../../src/elements/agent-chat/voice-composer.js';
import type { VoiceInputApi, VoiceInputEventMap, VoiceInputResult } from '../../../src/client/contracts.js';

/** A microphone whose events and stop() the test drives. */
class Microphone {
  readonly listeners = new Map<string, Set<(value: never) => void>>();
  started = false;
  cancelled = false;
  disposed = false;
  #stopped: ((result: VoiceInputResult | null) => void) | null = null;

  readonly api = {
    state: 'idle',
    start: async () => {
      this.started = true;
    },
    stop: () => new Promise<VoiceInputResult | null>((resolve) => (this.#stopped = resolve)),
    cancel: () => {
      this.cancelled = true;
    },
    dispose: () => {
      this.disposed = true;
    },
    on: <K extends keyof VoiceInputEventMap>(type: K, listener: (value: VoiceInputEventMap[K]) => void) => {
      const set = this.listeners.get(type) ?? new Set();
      this.listeners.set(type, set);
      set.add(listener as (value: never) => void);
      return () => set.delete(listener as (value: never) => void);
    },
  } as unknown as VoiceInputApi;

  fire<K extends keyof VoiceInputEventMap>(type: K, value: VoiceInputEventMap[K]): void {
    for (const listener of this.listeners.get(type) ?? []) (listener as (v: VoiceInputEventMap[K]) => void)(value);
  }

  /** Settles the pending stop() with `text`. */
  stopWith(text: string): void {
    this.#stopped?.({ text, segments: [], language: 'en', durationSeconds: 1 });
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function composer() {
  const calls: string[] = [];
  const microphones: Microphone[] = [];
  /** Pending openings: the test decides when each microphone is ready. */
  const openings: Array<(mic: Microphone) => void> = [];
  const host: VoiceComposerHost = {
    openInput: () => new Promise((resolve) => openings.push((mic) => resolve(mic.api))),
    started: () => calls.push('started'),
    draft: () => '',
    setDraft: (text) => calls.push(`heard:${text}`),
    said: (text) => {
      calls.push(`said:${text}`);
      return true;
    },
    bargeIn: () => calls.push('bargeIn'),
    failed: (error) => calls.push(`failed:${error.kind}`),
    level: () => {},
    changed: () => {},
  };
  const open = async () => {
    const mic = new Microphone();
    microphones.push(mic);
    openings.shift()!(mic);
    await tick();
    return mic;
  };
  return { voice: new VoiceComposer(host, new LatestRun()), calls, microphones, open };
}

describe('VoiceComposer runs', () => {
  test('a microphone that opens after its utterance was cancelled is disposed at once and never heard', async () => {
    const { voice, calls, open } = composer();
    voice.listen();
    voice.cancel();
    const late = await open();
    expect(late.disposed).toBe(true);
    expect(late.started).toBe(false);
    late.fire('final', { text: 'too late', segments: [], language: 'en', durationSeconds: 1 });
    expect(calls).toEqual([]);
    expect(voice.phase).toBe('off');
  });

  test('finish() whose stop() settles after a cancel uses nothing of it', async () => {
    const { voice, calls, open } = composer();
    voice.listen();
    const mic = await open();
    expect(mic.started).toBe(true);
    expect(calls).toEqual(['started']);
    const finishing = voice.finish();
    voice.cancel();
    mic.stopWith('said before the cancel');
    await finishing;
    expect(calls).toEqual(['started']);
    expect(mic.cancelled && mic.disposed).toBe(true);
  });

  test('a microphone that gave up just before the next utterance began does not end the new one', async () => {
    const { voice, calls, open } = composer();
    voice.listen();
    const first = await open();
    first.fire('state', 'idle'); // gave up without a final: it settles on the next tick, unless stale by then
    voice.cancel();
    voice.listen();
    const second = await open(); // the first one's tick comes and goes meanwhile
    expect(voice.phase).toBe('listening');
    second.fire('partial', 'two');
    expect(calls).toEqual(['started', 'started', 'heard:two']);
  });
});
