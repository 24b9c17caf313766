// <audio-transcriber> against the REAL relay and local platform (mounted at /api): files through the
// streamed transcription, and Chromium's fake microphone (a looped Flite sentence about a fox) through
// the realtime WebSocket.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { resetMouse, sendKeys, sendMouse } from '@web/test-runner-commands';
import '../../src/elements/audio-transcriber/define.js';
import type { AudioTranscriber } from '../../src/elements/audio-transcriber/audio-transcriber.js';
import type { ParleyTranscriptionFinalDetail } from '../../src/elements/audio-transcriber/events.js';
import { sharedClient } from '../../src/elements/internal/shared-client.js';
import { PlatformError } from '../../src/client/index.js';
import type { TranscriptionEventStream, TranscriptionStreamEvent } from '../../src/client/index.js';
import { formatSegmentTime } from '../../src/elements/audio-transcriber/strings.js';
import { axeViolations } from './helpers/axe.js';

const RELAY = '/api';
/** Long enough for the looped fake microphone (≈3 s sentence, 2.5 s pause) to say its whole sentence and pause, wherever the loop is. */
const HEARD_MS = 14_000;

function parts(el: AudioTranscriber) {
  const q = <T extends HTMLElement = HTMLElement>(part: string) => el.shadowRoot!.querySelector<T>(`[part~="${part}"]`);
  return {
    record: () => q<HTMLButtonElement>('record-button')!,
    level: () => q('level')!,
    elapsed: () => q('elapsed')!.textContent!.trim(),
    dropZone: () => q<HTMLButtonElement>('drop-zone')!,
    fileInput: () => el.shadowRoot!.querySelector<HTMLInputElement>('input[type="file"]')!,
    cancel: () => q<HTMLButtonElement>('cancel-button'),
    language: () => q<HTMLSelectElement>('language-select')!,
    error: () => q('error'),
    transcript: () => q('transcript')!.textContent!.replace(/\s+/g, ' ').trim(),
    live: () => q('live'),
    segments: () => [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part~="segment"]')],
    copy: () => q<HTMLButtonElement>('copy-button')!,
    clear: () => q<HTMLButtonElement>('clear-button')!,
    copyStatus: () => q('copy-status')!.textContent!.trim(),
    announcement: () => el.shadowRoot!.querySelector('[aria-live="polite"]')!.textContent!.trim(),
  };
}

let callWav: Promise<File> | null = null;
/** `Please call me back when you get home tonight.` (Flite, 16 kHz WAV), from the dev server. */
function callFile(): Promise<File> {
  callWav ??= fetch('/test/fixtures/transcription/call.wav').then(async (res) => {
    if (!res.ok) throw new Error(`fixture: ${res.status}`);
    return new File([await res.blob()], 'call.wav', { type: 'audio/wav' });
  });
  return callWav;
}

function pickFile(el: AudioTranscriber, file: File): void {
  const input = parts(el).fileInput();
  const transfer = new DataTransfer();
  transfer.items.add(file);
  input.files = transfer.files;
  input.dispatchEvent(new Event('change'));
}

function recordEvents(el: AudioTranscriber): string[] {
  const events: string[] = [];
  for (const name of ['parley-transcription-start', 'parley-transcription-partial', 'parley-transcription-final', 'parley-transcription-error'] as const) {
    el.addEventListener(name, () => { if (events.at(-1) !== name) events.push(name); });
  }
  return events;
}

const SEGMENT_TIME = /^\d\d:\d\d\.\d–\d\d:\d\d\.\d$/;

describe('<audio-transcriber> with files', () => {
  it('transcribes a picked file as it streams: live words, then the text and its timed segments', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} timestamps></audio-transcriber>`);
    const events = recordEvents(el);
    const partials: string[] = [];
    el.addEventListener('parley-transcription-partial', (e) => partials.push(e.detail.text));
    const final = oneEvent(el, 'parley-transcription-final');
    pickFile(el, await callFile());
    await el.updateComplete;
    expect(el.activity).to.equal('file');
    expect(parts(el).cancel(), 'a cancel button while it streams').to.not.equal(null);
    const { detail } = await final;
    expect(detail.source).to.equal('file');
    expect(detail.text.toLowerCase()).to.match(/call/).and.match(/back/).and.match(/home/);
    expect(detail.segments.length).to.be.greaterThan(0);
    expect(events).to.deep.equal(['parley-transcription-start', 'parley-transcription-partial', 'parley-transcription-final']);
    expect(partials.at(-1)!.trim()).to.equal(detail.text.trim()); // the partials are the growing whole text
    await el.updateComplete;
    expect(parts(el).transcript().toLowerCase()).to.contain('call').and.contain('home');
    expect(parts(el).live(), 'no live text once final').to.equal(null);
    expect(parts(el).cancel()).to.equal(null);
    const rows = parts(el).segments();
    expect(rows.length).to.equal(detail.segments.length);
    const time = rows[0].querySelector('[part~="segment-time"]')!.textContent!.trim();
    expect(time).to.match(SEGMENT_TIME);
    expect(parts(el).announcement()).to.contain('Transcribed:').and.contain(detail.text.trim().split(/\s+/)[0]);
    expect(el.activity).to.equal('idle');
  });

  it('transcribes a file dropped on the drop zone, with speaker labels when diarize is set', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} timestamps diarize></audio-transcriber>`);
    const final = oneEvent(el, 'parley-transcription-final');
    const transfer = new DataTransfer();
    transfer.items.add(await callFile());
    const over = new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true, composed: true });
    parts(el).dropZone().dispatchEvent(over);
    expect(over.defaultPrevented, 'dragover accepted').to.equal(true);
    await el.updateComplete;
    expect(parts(el).dropZone().classList.contains('dragging')).to.equal(true);
    parts(el).dropZone().dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true, composed: true }));
    const { detail } = await final;
    expect(detail.text.toLowerCase()).to.contain('back');
    expect(detail.segments[0].speaker_id).to.equal('speaker_1');
    await el.updateComplete;
    expect(parts(el).segments()[0].querySelector('[part~="speaker"]')!.textContent).to.equal('Speaker 1');
    expect(parts(el).dropZone().classList.contains('dragging')).to.equal(false);
  });

  it('with timestamps and a chosen language, sends the language without times and says why', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} timestamps language="en"></audio-transcriber>`);
    expect(el.shadowRoot!.querySelector('[part~="language-note"]')!.textContent).to.contain('only available with Auto');
    const final = oneEvent(el, 'parley-transcription-final');
    pickFile(el, await callFile());
    const { detail } = await final; // the platform would refuse both together (422)
    expect(detail.text.toLowerCase()).to.contain('home');
    expect(detail.language).to.equal('en');
    expect(detail.segments).to.deep.equal([]);
  });

  it('says so when relay-url is missing (to the site owner in the event; the visitor gets a sentence)', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber></audio-transcriber>`);
    const error = oneEvent(el, 'parley-transcription-error');
    pickFile(el, await callFile());
    const { detail } = await error;
    expect(detail.kind).to.equal('platform');
    expect(detail.detail).to.contain('relay-url is not set');
    expect(detail.message).to.contain('could not transcribe').and.not.contain('relay-url');
    expect(el.activity).to.equal('idle');
  });

  it('writes segment times as mm:ss.s', () => {
    expect(formatSegmentTime(0)).to.equal('00:00.0');
    expect(formatSegmentTime(4.26)).to.equal('00:04.3');
    expect(formatSegmentTime(64.25)).to.equal('01:04.3');
    expect(formatSegmentTime(59.96)).to.equal('01:00.0');
  });

  it('refuses a file that is not audio without sending it', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    const error = oneEvent(el, 'parley-transcription-error');
    const started = { value: false };
    el.addEventListener('parley-transcription-start', () => { started.value = true; });
    pickFile(el, new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    const { detail } = await error;
    expect(detail.kind).to.equal('not-audio');
    await el.updateComplete;
    expect(parts(el).error()!.textContent).to.contain('not audio');
    // Announced once, politely, through the live region: the visible line is not an alert.
    expect(parts(el).error()!.hasAttribute('role')).to.equal(false);
    expect(parts(el).announcement()).to.equal(parts(el).error()!.textContent!.trim());
    expect(started.value).to.equal(false);
  });

  it('tells a model the platform does not serve in a neutral sentence, no retry; the platform’s message goes to the event and the console with the setting', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} model="no-such-model"></audio-transcriber>`);
    const logged: unknown[][] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => { logged.push(args); };
    try {
      const failed = oneEvent(el, 'parley-transcription-error');
      pickFile(el, await callFile());
      const { detail } = await failed;
      // 400 invalid_model: retrying cannot help (client/errors.ts refusalKind).
      expect(detail.kind).to.equal('not-available');
      expect(detail.detail).to.contain('no-such-model');
      await el.updateComplete;
      const shown = parts(el).error()!.textContent!;
      expect(shown).to.equal(detail.message);
      expect(shown).to.equal('Transcription is not available on this page.');
      const line = logged.map((args) => args.map(String).join(' ')).find((l) => l.includes('no-such-model'));
      expect(line, 'the platform’s words in the console').to.be.a('string');
      expect(line).to.contain('`model` attribute');
      expect(el.activity).to.equal('idle');
    } finally {
      console.error = error;
    }
  });

  it('cancels a file being transcribed: nothing is added, focus goes back to the drop zone', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    let finals = 0;
    el.addEventListener('parley-transcription-final', () => finals++);
    const started = oneEvent(el, 'parley-transcription-start');
    pickFile(el, await callFile());
    await started;
    await el.updateComplete;
    parts(el).cancel()!.click();
    await el.updateComplete;
    await el.updateComplete;
    expect(el.activity).to.equal('idle');
    expect(el.shadowRoot!.activeElement === parts(el).dropZone(), 'focus on the drop zone').to.equal(true);
    await new Promise((r) => setTimeout(r, 1500));
    expect(finals).to.equal(0);
    expect(el.transcript.length).to.equal(0);
    expect(parts(el).announcement()).to.contain('Cancelled');
  });

  it('keeps the text received so far when the stream breaks, and says it was interrupted', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    // The real stream from the relay, cut after its first words: what a dropped connection looks like to the element.
    const client = await sharedClient(RELAY);
    const transcription = client.transcription!;
    const real = transcription.transcribeStream.bind(transcription);
    const original = transcription.transcribeStream;
    (transcription as { transcribeStream: typeof original }).transcribeStream = (file, options) => {
      const stream = real(file, options);
      const broken = new PlatformError({ status: 0, type: 'stream_error', code: null, retryAfter: null, message: 'The stream ended early' });
      const result = Promise.reject(broken);
      result.catch(() => undefined);
      return {
        result,
        abort: () => stream.abort(),
        async *[Symbol.asyncIterator](): AsyncIterator<TranscriptionStreamEvent> {
          for await (const event of stream) {
            yield event;
            if (event.type === 'transcription.text.delta' && event.text.trim()) {
              stream.abort();
              throw broken;
            }
          }
        },
      } satisfies TranscriptionEventStream;
    };
    try {
      const error = oneEvent(el, 'parley-transcription-error');
      pickFile(el, await callFile());
      const { detail } = await error;
      expect(detail.kind).to.equal('interrupted');
      await el.updateComplete;
      expect(el.transcript).to.have.length(1);
      expect(el.transcript[0].interrupted).to.equal(true);
      expect(el.transcript[0].text.length).to.be.greaterThan(0);
      expect(parts(el).transcript()).to.contain(el.transcript[0].text).and.contain('Interrupted');
      expect(parts(el).error()!.textContent).to.contain('interrupted').and.contain('kept');
    } finally {
      (transcription as { transcribeStream: typeof original }).transcribeStream = original;
    }
  });

  it('copies the transcript (plain text) and clears it', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    const final = oneEvent(el, 'parley-transcription-final');
    pickFile(el, await callFile());
    const { detail } = await final;
    await el.updateComplete;
    const written: string[] = [];
    const clipboard = Object.getOwnPropertyDescriptor(navigator, 'clipboard');
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => { written.push(text); } } });
    try {
      parts(el).copy().click();
      await waitUntil(() => parts(el).copyStatus() === 'Copied', 'Copied is shown');
    } finally {
      if (clipboard) Object.defineProperty(navigator, 'clipboard', clipboard);
      else delete (navigator as { clipboard?: unknown }).clipboard;
    }
    expect(written).to.deep.equal([detail.text]);
    expect(parts(el).copyStatus()).to.equal('Copied');
    parts(el).clear().focus();
    parts(el).clear().click();
    await el.updateComplete;
    await el.updateComplete;
    expect(el.transcript.length).to.equal(0);
    expect(parts(el).transcript()).to.not.contain(detail.text);
    expect(parts(el).copy().disabled).to.equal(true);
    expect(el.shadowRoot!.activeElement === parts(el).record(), 'focus on the record button').to.equal(true);
  });

  it('renders text as text, never as HTML', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    const entries = el as unknown as { entries: unknown[] };
    entries.entries = [{ source: 'file', label: 'x', text: '<img src=x onerror=alert(1)><b>bold</b>', segments: [], language: null, interrupted: false }];
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part~="transcript"] img, [part~="transcript"] b')).to.equal(null);
    expect(parts(el).transcript()).to.contain('<b>bold</b>');
  });

  it('is accessible (axe) empty and with a timed transcript; every control is labelled', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} heading="Dictation" timestamps></audio-transcriber>`);
    expect(await axeViolations(el)).to.deep.equal([]);
    expect(parts(el).record().textContent!.trim()).to.equal('Start recording');
    expect(parts(el).record().getAttribute('aria-pressed')).to.equal('false');
    expect(parts(el).level().getAttribute('role')).to.equal('meter');
    expect(parts(el).level().getAttribute('aria-label')).to.equal('Microphone level');
    expect(parts(el).language().closest('label')!.textContent).to.contain('Language');
    expect(parts(el).language().options[0].textContent).to.equal('Auto');
    expect(el.shadowRoot!.querySelector('[part~="base"]')!.getAttribute('aria-label')).to.equal('Dictation');
    // keyboard: the drop zone is a button, in the tab order
    expect(parts(el).dropZone().tabIndex).to.equal(0);
    parts(el).language().value = 'fr';
    parts(el).language().dispatchEvent(new Event('change'));
    expect(el.language).to.equal('fr');
    await el.updateComplete;
    expect(el.getAttribute('language')).to.equal('fr');
    el.language = '';
    const final = oneEvent(el, 'parley-transcription-final');
    pickFile(el, await callFile());
    await final;
    await el.updateComplete;
    expect(parts(el).segments().length).to.be.greaterThan(0);
    expect(await axeViolations(el)).to.deep.equal([]);
  });
});

describe('<audio-transcriber> with the microphone', () => {
  it('records in toggle mode: level, elapsed time, live words, then the final text (fox, lazy, dog)', async function () {
    this.timeout(30_000);
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} timestamps></audio-transcriber>`);
    const events = recordEvents(el);
    const started = oneEvent(el, 'parley-transcription-start');
    parts(el).record().click();
    expect((await started).detail.source).to.equal('microphone');
    await el.updateComplete;
    expect(el.activity).to.equal('listening');
    expect(parts(el).record().getAttribute('aria-pressed')).to.equal('true');
    expect(parts(el).record().textContent!.trim()).to.equal('Stop recording');
    expect(parts(el).announcement()).to.equal('Recording');
    expect(parts(el).elapsed()).to.match(/ 0:00$/);
    let loudest = 0;
    const sampling = setInterval(() => { loudest = Math.max(loudest, Number(parts(el).level().getAttribute('aria-valuenow'))); }, 50);
    // Live words appear once the platform heard a whole utterance (the fake microphone pauses after its sentence).
    await waitUntil(() => /fox|lazy|dog/i.test(parts(el).live()?.textContent ?? ''), 'live words while speaking', { timeout: HEARD_MS });
    clearInterval(sampling);
    expect(loudest, 'the level meter moved').to.be.greaterThan(0);
    // Words were heard, so the microphone has run for a sentence: the recording time moved on from 0:00.
    expect(parts(el).elapsed()).to.match(/ \d+:\d\d$/).and.not.match(/ 0:00$/);
    const final = oneEvent(el, 'parley-transcription-final');
    parts(el).record().click();
    const { detail } = await final as CustomEvent<ParleyTranscriptionFinalDetail>;
    expect(detail.source).to.equal('microphone');
    expect(detail.text.toLowerCase()).to.match(/fox/).and.match(/lazy/).and.match(/dog/);
    expect(events.slice(0, 2)).to.deep.equal(['parley-transcription-start', 'parley-transcription-partial']);
    expect(events.at(-1)).to.equal('parley-transcription-final');
    await el.updateComplete;
    expect(el.activity).to.equal('idle');
    expect(parts(el).record().getAttribute('aria-pressed')).to.equal('false');
    expect(parts(el).transcript().toLowerCase()).to.contain('fox');
    expect(parts(el).announcement()).to.contain('Transcribed:');
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('push-to-talk with the keyboard: hold Space on the focused button, release to stop', async function () {
    this.timeout(30_000);
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} mode="push-to-talk"></audio-transcriber>`);
    expect(parts(el).record().textContent!.trim()).to.equal('Hold to talk');
    const heard: string[] = [];
    el.addEventListener('parley-transcription-partial', (e) => heard.push(e.detail.text));
    parts(el).record().focus();
    await sendKeys({ down: 'Space' });
    await waitUntil(() => el.activity === 'listening', 'listening while Space is held', { timeout: 10_000 });
    await el.updateComplete;
    expect(parts(el).record().getAttribute('aria-pressed')).to.equal('true');
    expect(parts(el).record().textContent!.trim()).to.equal('Release to stop');
    await waitUntil(() => heard.some((t) => /fox|lazy|dog/i.test(t)), 'words heard while Space is held', { timeout: HEARD_MS });
    expect(el.activity, 'still recording while Space is held').to.equal('listening');
    await sendKeys({ up: 'Space' });
    await waitUntil(() => el.activity === 'idle', 'stopped on release', { timeout: 10_000 });
    expect(el.text.toLowerCase()).to.match(/fox|lazy|dog/);
    expect(el.transcript[0].source).to.equal('microphone');
    expect(el.shadowRoot!.activeElement === parts(el).record(), 'focus on the record button').to.equal(true);
  });

  it('push-to-talk with the pointer: hold the button, release to stop', async function () {
    this.timeout(30_000);
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} mode="push-to-talk"></audio-transcriber>`);
    const final = oneEvent(el, 'parley-transcription-final');
    const heard: string[] = [];
    el.addEventListener('parley-transcription-partial', (e) => heard.push(e.detail.text));
    const box = parts(el).record().getBoundingClientRect();
    await sendMouse({ type: 'move', position: [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)] });
    await sendMouse({ type: 'down' });
    try {
      await waitUntil(() => heard.some((t) => /fox|lazy|dog/i.test(t)), 'words heard while the button is held', { timeout: HEARD_MS });
      expect(el.activity).to.equal('listening');
    } finally {
      await sendMouse({ type: 'up' });
      await resetMouse();
    }
    const { detail } = await final;
    expect(detail.source).to.equal('microphone');
    expect(detail.text.toLowerCase()).to.match(/fox|lazy|dog/);
    await waitUntil(() => el.activity === 'idle', 'idle after release');
  });

  it('says how to allow the microphone when permission is denied', async () => {
    const el = await fixture<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    const media = navigator.mediaDevices;
    const original = media.getUserMedia;
    media.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
    try {
      const error = oneEvent(el, 'parley-transcription-error');
      parts(el).record().click();
      const { detail } = await error;
      expect(detail.kind).to.equal('permission-denied');
      await el.updateComplete;
      expect(parts(el).error()!.textContent).to.contain('site settings');
      expect(el.activity).to.equal('idle');
      expect(parts(el).record().getAttribute('aria-pressed')).to.equal('false');
      expect(parts(el).record().textContent!.trim()).to.equal('Start recording');
    } finally {
      media.getUserMedia = original;
    }
  });
});
