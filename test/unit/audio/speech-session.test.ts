// The speech session without a DOM or Web Audio: a scripted playback (the module mocked) and a scripted
// `client.speech.stream` stand in for SpeechPlayback and the relay (the real ones: test/browser/speech-player.test.ts
// and speech-agent-chat.test.ts). The reply speaker is tested over it too.
import { describe, expect, it, vi } from 'vitest';
import { SpeechSession, type SpeechSessionOptions, type Utterance } from '../../../src/audio/speech-session.js';
import { ReplySpeaker } from '../../../src/audio/reply-speaker.js';
import type { SpeechPlaybackOptions } from '../../../src/audio/speech-playback.js';
import { PlatformError } from '../../../src/client/errors.js';
import { AUDIO_START_TIMEOUT_MS } from '../../../src/audio/audio-start.js';
import type { ParleyClientApi, SpeechAudioStream, SpeechRequest } from '../../../src/client/contracts.js';

// The scripted playback and its helper are made before the mocked module is (vi.mock is hoisted above the imports).
const { deferred, ScriptedPlayback } = vi.hoisted(() => {
  function deferred<T = void>() {
    let resolve!: (value: T) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  }

  /** What SpeechSession uses of SpeechPlayback, scripted: each feed waits for the test. */
  class ScriptedPlayback {
    /** The playback made last (each session makes one). */
    static made: ScriptedPlayback | null = null;
    readonly log: string[] = [];
    readonly feeds: Request[] = [];
    drained = deferred();
    paused = false;
    /** The context: running unless a test says otherwise (`state`, and `statechange` listeners it can call). */
    readonly context = {
      state: 'running',
      listeners: new Set<() => void>(),
      addEventListener(_type: string, listener: () => void) { this.listeners.add(listener); },
      removeEventListener(_type: string, listener: () => void) { this.listeners.delete(listener); },
    };
    readonly scheduler = { endRun: () => this.log.push('end-run') };
    constructor(readonly options: SpeechPlaybackOptions) {
      ScriptedPlayback.made = this;
    }
    feed(stream: SpeechAudioStream): Promise<{ seconds: number; stopped: boolean }> {
      const feed = (stream as unknown as { feed: Request }).feed;
      this.log.push(`feed:${feed.request.input}`);
      return feed.fed.promise;
    }
    finish(): Promise<void> {
      this.log.push('finish');
      return this.drained.promise;
    }
    stop(): void {
      this.log.push('stop');
      for (const feed of this.feeds) feed.fed.resolve({ seconds: 0, stopped: true });
      this.drained.resolve();
      this.drained = deferred();
    }
    async pause(): Promise<void> {
      this.paused = true;
    }
    unlock(): void {}
    async dispose(): Promise<void> {}
    /** The first chunk of the feed being read was scheduled at `scheduledAt`. */
    firstAudio(scheduledAt: number): void {
      this.options.onFirstAudio?.({ chunk: { scheduledAt } } as never);
    }
  }
  return { deferred, ScriptedPlayback };
});
vi.mock('../../../src/audio/speech-playback.js', () => ({ SpeechPlayback: ScriptedPlayback }));

/** A request whose feed the test settles through `fed`. */
interface Request {
  request: SpeechRequest;
  aborted: boolean;
  fed: ReturnType<typeof deferred<{ seconds: number; stopped: boolean }>>;
}

/** A stream the session can abort, carrying its request for the scripted playback. */
function scriptedStream(feed: Request): SpeechAudioStream {
  return { feed, abort: () => { feed.aborted = true; } } as unknown as SpeechAudioStream;
}

function setup(options: SpeechSessionOptions = {}) {
  let playback!: InstanceType<typeof ScriptedPlayback>;
  const requests: Request[] = [];
  const stream = (request: SpeechRequest) => {
    const feed: Request = { request, aborted: false, fed: deferred() };
    requests.push(feed);
    playback.feeds.push(feed);
    return scriptedStream(feed);
  };
  const client = { speech: { stream } } as unknown as ParleyClientApi;
  const events: string[] = [];
  const session = new SpeechSession({
    onEnded: () => events.push('ended'),
    onError: (error) => events.push(`error:${error.status}`),
    onFirstAudio: (latencyMs) => events.push(`first-audio:${latencyMs}`),
    ...options,
  });
  playback = ScriptedPlayback.made!;
  const utterance: Utterance = { client, format: 'pcm', model: 'tts', voice: 'v1' };
  return { session, playback, requests, events, utterance, client };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('SpeechSession', () => {
  it('speaks the texts of an utterance one after another, then finishes and ends', async () => {
    const { session, playback, requests, events, utterance } = setup();
    let over = false;
    void session.begin(utterance, 100).then(() => { over = true; });
    session.say(['One.', 'Two.'], true);
    expect(requests.map((r) => r.request)).toEqual([{ input: 'One.', response_format: 'pcm', model: 'tts', voice_id: 'v1' }]);
    playback.firstAudio(160);
    requests[0]!.fed.resolve({ seconds: 1, stopped: false });
    await flush();
    expect(requests).toHaveLength(2);
    playback.firstAudio(900); // only the utterance's first audio counts
    requests[1]!.fed.resolve({ seconds: 1, stopped: false });
    await flush();
    expect(playback.log).toEqual(['feed:One.', 'feed:Two.', 'finish']);
    expect(over).toBe(false);
    playback.drained.resolve();
    await flush();
    expect(events).toEqual(['first-audio:60', 'ended']);
    expect(over).toBe(true);
  });

  it('waits for more text without calling it an underrun, and reads model and voice again for each text', async () => {
    const { session, playback, requests, events, utterance } = setup();
    void session.begin(utterance);
    session.say(['First sentence.']);
    requests[0]!.fed.resolve({ seconds: 1, stopped: false });
    await flush();
    expect(playback.log).toEqual(['feed:First sentence.', 'end-run']);
    utterance.voice = 'v2';
    session.say(['Second sentence.'], true);
    expect(requests[1]!.request).toMatchObject({ input: 'Second sentence.', voice_id: 'v2' });
    requests[1]!.fed.resolve({ seconds: 1, stopped: false });
    await flush();
    playback.drained.resolve();
    await flush();
    expect(events).toEqual(['ended']);
  });

  it('a new utterance or stop() silences the one before at once and aborts its request; nothing late is reported', async () => {
    const { session, playback, requests, events, utterance } = setup();
    let firstOver = false;
    void session.begin(utterance).then(() => { firstOver = true; });
    session.say(['Old.'], true);
    const second = session.speak('New.', utterance);
    expect(requests[0]!.aborted).toBe(true);
    expect(playback.log).toEqual(['feed:Old.', 'stop', 'feed:New.']);
    await flush();
    expect(firstOver).toBe(true);
    session.stop();
    expect(requests[1]!.aborted).toBe(true);
    await second;
    await flush();
    expect(events).toEqual([]);
  });

  it('a paused playback stays paused when an utterance begins after a stop', () => {
    const { session, playback, utterance } = setup();
    void session.speak('One.', utterance);
    session.stop();
    void playback.pause();
    void session.speak('Two.', utterance);
    expect(playback.log.filter((l) => l === 'stop')).toHaveLength(1);
  });

  it('a failed request stops the utterance and reports the error once', async () => {
    const { session, playback, requests, events, utterance } = setup();
    const over = session.speak('Hello.', utterance);
    requests[0]!.fed.reject(new PlatformError({ status: 422, type: 'invalid_request_error', code: null, retryAfter: null, message: 'no such voice' }));
    await over;
    expect(events).toEqual(['error:422']);
    expect(playback.log).toEqual(['feed:Hello.', 'stop']);
  });

  it('a context that does not start is reported as audio_not_started and stops the utterance; one that starts late is not', async () => {
    vi.useFakeTimers();
    try {
      const errors: (string | null)[] = [];
      const { session, playback, requests, utterance } = setup({ onError: (error) => errors.push(error.code) });
      playback.context.state = 'suspended';
      void session.speak('Hello.', utterance);
      await vi.advanceTimersByTimeAsync(AUDIO_START_TIMEOUT_MS);
      expect(errors).toEqual(['audio_not_started']);
      expect(requests[0]!.aborted).toBe(true);
      expect(playback.log).toContain('stop');

      void session.speak('Again.', utterance);
      playback.context.state = 'running';
      for (const listener of playback.context.listeners) listener();
      await vi.advanceTimersByTimeAsync(AUDIO_START_TIMEOUT_MS);
      expect(errors).toEqual(['audio_not_started']);
      expect(requests[1]!.aborted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says nothing when no utterance was begun', () => {
    const { session, requests } = setup();
    session.say(['Lost.'], true);
    expect(requests).toHaveLength(0);
  });
});

describe('ReplySpeaker over a speech session', () => {
  function speaker() {
    const requests: Request[] = [];
    const stream = (request: SpeechRequest) => {
      const feed: Request = { request, aborted: false, fed: deferred() };
      requests.push(feed);
      return scriptedStream(feed);
    };
    const speaking: Array<string | null> = [];
    const errors: number[] = [];
    const reply = new ReplySpeaker({
      client: { speech: { stream } } as unknown as ParleyClientApi,
      voice: 'v1',
      onSpeaking: (id) => speaking.push(id),
      onError: (error) => errors.push(error.status),
    });
    return { reply, requests, speaking, errors };
  }

  it('follows a growing reply sentence by sentence, and stays silent once the user stopped it', () => {
    const { reply, requests, speaking } = speaker();
    reply.follow('r1', 'Hello there. How', false);
    expect(speaking).toEqual(['r1']);
    expect(requests.map((r) => r.request.input)).toEqual(['Hello there.']);
    expect(requests[0]!.request.voice_id).toBe('v1');
    reply.stop();
    expect(speaking).toEqual(['r1', null]);
    expect(requests[0]!.aborted).toBe(true);
    reply.follow('r1', 'Hello there. How are you?', true);
    expect(speaking, 'the silenced reply stays silent').toEqual(['r1', null]);
    reply.speak('r1', 'Hello there.');
    expect(speaking, 'read aloud again on request').toEqual(['r1', null, 'r1']);
  });
});
