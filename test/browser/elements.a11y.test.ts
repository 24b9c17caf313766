// <speech-player>, <audio-transcriber> and <doc-ocr-viewer> for everyone (issue 15): axe (WCAG 2.0–2.2
// A/AA and best practices) in every state (idle, with content — speech playing, a transcript, the
// microphone recording, a document read —, an error), each in the light and dark themes, forced colours
// and right to left; and a keyboard-only walk of each (Tab order, Enter/Space on the main action, focus
// kept inside the element). One real engine call per state through the REAL relay and local platform
// (at /api); every wait is bounded, and whatever plays or records is stopped after each test.
import { expect, fixture, html, nextFrame, waitUntil } from '@open-wc/testing';
import { emulateMedia, executeServerCommand, sendKeys } from '@web/test-runner-commands';
import 'axe-core/axe.min.js';
import type { AxeResults, RunOptions } from 'axe-core';
import '../../src/elements/speech-player/define.js';
import '../../src/elements/audio-transcriber/define.js';
import '../../src/elements/doc-ocr-viewer/define.js';
import type { SpeechPlayer } from '../../src/elements/speech-player/speech-player.js';
import type { AudioTranscriber } from '../../src/elements/audio-transcriber/audio-transcriber.js';
import type { DocOcrViewer } from '../../src/elements/doc-ocr-viewer/doc-ocr-viewer.js';
import { loadLocale } from '../../src/elements/internal/locale.js';
import type { OcrResponse } from '../../src/client/index.js';

const RELAY = '/api';
const LONG = 'This is a long text for the accessibility test of the speech player, long enough to keep it playing while axe looks at it. '.repeat(3);
/** The bound of every wait on an element's state (an engine's answer included). */
const WAIT = 10_000;

type MediaElement = SpeechPlayer | AudioTranscriber | DocOcrViewer;

// ---------------------------------------------------------------- bounded waits

/** Waits until `predicate` holds; throws after `timeout` ms (never hangs the run). */
function waitFor(predicate: () => unknown, what: string, timeout = WAIT): Promise<void> {
  return waitUntil(predicate, `timed out waiting for: ${what}`, { timeout, interval: 25 });
}

/** The next `name` event of `el`; rejects after `timeout` ms. */
function nextEvent<T = unknown>(el: EventTarget, name: string, timeout = WAIT): Promise<CustomEvent<T>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      el.removeEventListener(name, on);
      reject(new Error(`timed out waiting for ${name}`));
    }, timeout);
    const on = (event: Event) => {
      clearTimeout(timer);
      el.removeEventListener(name, on);
      resolve(event as CustomEvent<T>);
    };
    el.addEventListener(name, on);
  });
}

async function settle(el: MediaElement): Promise<void> {
  await el.updateComplete;
  await nextFrame();
  await el.updateComplete;
}

// ---------------------------------------------------------------- axe

interface Axe { run(context: Element, options?: RunOptions): Promise<AxeResults> }

/** axe violations in an element (WCAG 2.0, 2.1 and 2.2 A/AA, and best practices); bounded like every wait. */
async function violations(el: Element): Promise<string[]> {
  const axe = (window as unknown as { axe: Axe }).axe;
  const run = axe.run(el, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
  let timer = 0;
  const late = new Promise<never>((_, reject) => { timer = window.setTimeout(() => reject(new Error('axe did not answer')), WAIT); });
  try {
    const results = await Promise.race([run, late]);
    return results.violations.map((v) => `${v.id}: ${v.help} → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  } finally {
    clearTimeout(timer);
  }
}

const isDark = (el: Element) => {
  const [r, g, b] = getComputedStyle(el).color.match(/\d+/g)!.map(Number);
  // Light text: the dark theme is on.
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b! > 150;
};

/**
 * axe in the light theme, the dark theme, forced colours and right to left (Arabic), on `el` as it is
 * now: its wrapper `frame` gets `dir="rtl" lang="ar"` last. Labels every failure with the variant.
 */
async function axeEverywhere(el: MediaElement, frame: HTMLElement, state: string): Promise<void> {
  expect(await violations(el), `${state}, light`).to.deep.equal([]);
  el.theme = 'dark';
  await settle(el);
  expect(isDark(el), `${state}: dark theme applied`).to.equal(true);
  expect(await violations(el), `${state}, dark`).to.deep.equal([]);
  el.theme = 'auto';
  await executeServerCommand('parley-forced-colors', { active: true });
  await settle(el);
  expect(matchMedia('(forced-colors: active)').matches).to.equal(true);
  expect(await violations(el), `${state}, forced colours`).to.deep.equal([]);
  await executeServerCommand('parley-forced-colors', { active: false });
  frame.dir = 'rtl';
  frame.lang = 'ar';
  await loadLocale('ar');
  await settle(el);
  expect(getComputedStyle(el).direction).to.equal('rtl');
  expect(await violations(el), `${state}, right to left`).to.deep.equal([]);
  frame.removeAttribute('dir');
  frame.removeAttribute('lang');
  await settle(el);
}

// ---------------------------------------------------------------- keyboard

/** The control focused inside `el` (null when focus is elsewhere on the page). */
function focusedIn(el: MediaElement): HTMLElement | null {
  return document.activeElement === el ? (el.shadowRoot!.activeElement as HTMLElement | null) : null;
}

/** How a focused control is named in a failure: its part, or its class, or its tag. */
function nameOf(node: Element | null): string {
  if (!node) return '(outside)';
  return node.getAttribute('part')?.split(' ')[0] ?? (node.getAttribute('class')?.split(' ')[0] || node.tagName.toLowerCase());
}

/**
 * Tabs from the page control `before` through `el` to the page control `after`: the names of the stops
 * inside the element, in order. Fails if focus leaves for anything but `after`.
 */
async function tabWalk(el: MediaElement, before: HTMLElement, after: HTMLElement, max = 30): Promise<string[]> {
  before.focus();
  const stops: string[] = [];
  for (let i = 0; i < max; i++) {
    await sendKeys({ press: 'Tab' });
    if (document.activeElement === after) return stops;
    const inside = focusedIn(el);
    expect(inside, `Tab ${i + 1} after ${stops.join(', ') || 'the page'}: focus inside the element`).to.not.equal(null);
    stops.push(nameOf(inside));
  }
  throw new Error(`Tab did not leave the element after ${max} presses: ${stops.join(', ')}`);
}

/** Shift+Tab from `after` back into `el`: the first stop reached, which must be the last one of the walk. */
async function tabBack(el: MediaElement, after: HTMLElement): Promise<string> {
  after.focus();
  await sendKeys({ down: 'Shift' });
  try {
    await sendKeys({ press: 'Tab' });
  } finally {
    await sendKeys({ up: 'Shift' });
  }
  return nameOf(focusedIn(el));
}

/** A page with a button before the element and one after it; the element inside a wrapper (for `dir`/`lang`). */
async function page<T extends MediaElement>(element: ReturnType<typeof html>) {
  const root = await fixture<HTMLDivElement>(html`<div>
    <button id="before" type="button">Before</button>
    <div class="frame">${element}</div>
    <button id="after" type="button">After</button>
  </div>`);
  const frame = root.querySelector<HTMLElement>('.frame')!;
  return {
    el: frame.firstElementChild as T,
    frame,
    before: root.querySelector<HTMLButtonElement>('#before')!,
    after: root.querySelector<HTMLButtonElement>('#after')!,
  };
}

const part = <T extends HTMLElement = HTMLElement>(el: MediaElement, name: string) => el.shadowRoot!.querySelector<T>(`[part~="${name}"]`);

/** Every element made in a test: stopped (playback, recording, reading) and the page's emulations reset after it. */
const made: MediaElement[] = [];
function track<T extends MediaElement>(el: T): T {
  made.push(el);
  return el;
}

afterEach(async () => {
  for (const el of made.splice(0)) {
    if (el.localName === 'speech-player') (el as SpeechPlayer).stop();
    else (el as AudioTranscriber | DocOcrViewer).cancel();
  }
  await emulateMedia({ colorScheme: 'light' });
  await executeServerCommand('parley-forced-colors', { active: false });
});

// ---------------------------------------------------------------- <speech-player>

describe('<speech-player> for everyone', () => {
  it('idle and after a refused request: axe in light, dark, forced colours and right to left', async () => {
    const { el, frame } = await page<SpeechPlayer>(html`<speech-player relay-url=${RELAY} text="Hi" voice="no-such-voice"></speech-player>`);
    track(el);
    await waitFor(() => part(el, 'voice-picker'), 'the voice picker');
    await axeEverywhere(el, frame, 'idle');
    const error = nextEvent(el, 'parley-speech-error');
    void el.speak();
    await error;
    await settle(el);
    expect(part(el, 'error')!.textContent).to.contain('not accepted');
    await axeEverywhere(el, frame, 'error');
  });

  it('keyboard only: Tab order, Enter plays, Space pauses and stops (focus moves to Play), Escape stops; axe while playing (light, dark, forced colours, right to left) and paused', async function () {
    this.timeout(60_000);
    const { el, frame, before, after } = await page<SpeechPlayer>(html`<speech-player relay-url=${RELAY} .text=${LONG}></speech-player>`);
    track(el);
    await waitFor(() => part(el, 'voice-picker'), 'the voice picker');
    // Idle: Stop is disabled, so not a stop.
    expect(await tabWalk(el, before, after)).to.deep.equal(['play-button', 'voice-select', 'rate-select']);
    expect(await tabBack(el, after)).to.equal('rate-select');

    const first = nextEvent(el, 'parley-speech-first-audio', 20_000);
    part(el, 'play-button')!.focus();
    await sendKeys({ press: 'Enter' });
    await first;
    await settle(el);
    expect(el.status).to.equal('playing');
    expect(focusedIn(el), 'focus stays on the play button').to.equal(part(el, 'play-button'));
    expect(part(el, 'play-button')!.getAttribute('aria-pressed')).to.equal('true');
    expect(await tabWalk(el, before, after)).to.deep.equal(['play-button', 'stop-button', 'voice-select', 'rate-select']);
    // The one engine call serves every variant: the text lasts far longer than the checks.
    await axeEverywhere(el, frame, 'playing');
    expect(el.status, 'still playing after the checks').to.equal('playing');
    part(el, 'play-button')!.focus();
    await sendKeys({ press: ' ' });
    await waitFor(() => el.status === 'paused', 'paused by Space');
    await settle(el);
    expect(await violations(el), 'paused').to.deep.equal([]);
    await sendKeys({ press: 'Enter' });
    await waitFor(() => el.status === 'playing', 'resumed by Enter');

    part(el, 'stop-button')!.focus();
    await sendKeys({ press: ' ' });
    await waitFor(() => el.status === 'stopped', 'stopped by Space');
    await settle(el);
    expect(part<HTMLButtonElement>(el, 'stop-button')!.disabled).to.equal(true);
    expect(focusedIn(el), 'focus moved from the disabled Stop to Play').to.equal(part(el, 'play-button'));

    // Escape stops from anywhere in the element.
    const again = nextEvent(el, 'parley-speech-start', 20_000);
    await sendKeys({ press: 'Enter' });
    await again;
    await sendKeys({ press: 'Escape' });
    await waitFor(() => el.status === 'stopped', 'stopped by Escape');
    await settle(el);
    expect(focusedIn(el)).to.equal(part(el, 'play-button'));
  });
});

// ---------------------------------------------------------------- <audio-transcriber>

let callWav: Promise<File> | null = null;
/** `Please call me back when you get home tonight.` (Flite, 16 kHz WAV), from the dev server. */
function callFile(): Promise<File> {
  callWav ??= fetch('/test/fixtures/transcription/call.wav').then(async (res) => {
    if (!res.ok) throw new Error(`fixture: ${res.status}`);
    return new File([await res.blob()], 'call.wav', { type: 'audio/wav' });
  });
  return callWav;
}

function pickAudio(el: AudioTranscriber, file: File): void {
  const input = el.shadowRoot!.querySelector<HTMLInputElement>('input[type="file"]')!;
  const transfer = new DataTransfer();
  transfer.items.add(file);
  input.files = transfer.files;
  input.dispatchEvent(new Event('change'));
}

describe('<audio-transcriber> for everyone', () => {
  it('idle and after a refused file: axe in light, dark, forced colours and right to left', async () => {
    const { el, frame } = await page<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} heading="Dictation" timestamps></audio-transcriber>`);
    track(el);
    await axeEverywhere(el, frame, 'idle');
    const error = nextEvent<{ kind: string }>(el, 'parley-transcription-error');
    pickAudio(el, new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    expect((await error).detail.kind).to.equal('not-audio');
    await settle(el);
    await axeEverywhere(el, frame, 'error');
  });

  it('with a transcript: axe everywhere; keyboard only reaches Copy and Clear, and Enter on Clear keeps focus inside', async function () {
    this.timeout(60_000);
    const { el, frame, before, after } = await page<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY} timestamps diarize></audio-transcriber>`);
    track(el);
    // Idle: Copy and Clear are disabled.
    expect(await tabWalk(el, before, after)).to.deep.equal(['record-button', 'language-select', 'drop-zone']);
    const final = nextEvent(el, 'parley-transcription-final', 30_000);
    pickAudio(el, await callFile());
    await final;
    await settle(el);
    expect(part(el, 'segments')).to.not.equal(null);
    await axeEverywhere(el, frame, 'with a transcript');
    expect(await tabWalk(el, before, after)).to.deep.equal(['record-button', 'language-select', 'drop-zone', 'copy-button', 'clear-button']);
    expect(await tabBack(el, after)).to.equal('clear-button');
    await sendKeys({ press: 'Enter' });
    await waitFor(() => el.transcript.length === 0, 'cleared by Enter');
    await settle(el);
    expect(focusedIn(el), 'focus moved from the disabled Clear to Record').to.equal(part(el, 'record-button'));
  });

  it('recording with the keyboard: Enter starts, axe while recording (light, dark, forced colours, right to left), Escape cancels, Space starts again', async function () {
    this.timeout(60_000);
    const { el, frame, before, after } = await page<AudioTranscriber>(html`<audio-transcriber relay-url=${RELAY}></audio-transcriber>`);
    track(el);
    part(el, 'record-button')!.focus();
    await sendKeys({ press: 'Enter' });
    await waitFor(() => el.activity === 'listening', 'recording after Enter', 20_000);
    await settle(el);
    expect(part(el, 'record-button')!.getAttribute('aria-pressed')).to.equal('true');
    expect(focusedIn(el)).to.equal(part(el, 'record-button'));
    // While recording the language cannot change and no file can be picked (aria-disabled, still a stop).
    expect(await tabWalk(el, before, after)).to.deep.equal(['record-button', 'drop-zone']);
    await axeEverywhere(el, frame, 'recording');
    expect(el.activity, 'still recording after the checks').to.equal('listening');
    part(el, 'record-button')!.focus();
    await sendKeys({ press: 'Escape' });
    await waitFor(() => el.activity === 'idle', 'cancelled by Escape');
    await settle(el);
    expect(focusedIn(el)).to.equal(part(el, 'record-button'));
    expect(el.transcript).to.deep.equal([]);
    await sendKeys({ press: ' ' });
    await waitFor(() => el.activity === 'listening', 'recording after Space', 20_000);
    el.cancel();
    await waitFor(() => el.activity === 'idle', 'cancelled');
  });
});

// ---------------------------------------------------------------- <doc-ocr-viewer>

/** Three pages, fed through `result` (no engine call). */
const threePages: OcrResponse = {
  model: 'mistral-ocr-latest',
  document_annotation: null,
  usage_info: { pages_processed: 3, doc_size_bytes: 100 },
  pages: [
    { index: 0, markdown: '# Annual report\n\nRevenue grew.', images: [], dimensions: null },
    { index: 1, markdown: '## Costs\n\n| item | cost |\n|---|---|\n| revenue share | 3 |', images: [], dimensions: null },
    { index: 2, markdown: 'Outlook: revenue, revenue.', images: [], dimensions: null },
  ],
};

async function helloPng(): Promise<File> {
  const res = await fetch('/test/fixtures/ocr/hello.png');
  if (!res.ok) throw new Error(`fixture: ${res.status}`);
  return new File([await res.blob()], 'hello.png', { type: 'image/png' });
}

describe('<doc-ocr-viewer> for everyone', () => {
  it('idle and after a refused file: axe in light, dark, forced colours and right to left', async () => {
    const { el, frame } = await page<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY} heading="Reader"></doc-ocr-viewer>`);
    track(el);
    await axeEverywhere(el, frame, 'idle');
    const error = nextEvent<{ kind: string }>(el, 'parley-ocr-error');
    void el.read(new File(['just text'], 'notes.txt', { type: 'text/plain' }));
    expect((await error).detail.kind).to.equal('not-document');
    await settle(el);
    await axeEverywhere(el, frame, 'error');
  });

  it('with a document read (and its original shown): axe everywhere; keyboard only reaches every control in order', async function () {
    this.timeout(60_000);
    const { el, frame, before, after } = await page<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY}></doc-ocr-viewer>`);
    track(el);
    expect(await tabWalk(el, before, after)).to.deep.equal(['drop-zone', 'url-input', 'button']);
    const done = nextEvent(el, 'parley-ocr-done', 30_000);
    void el.read(await helloPng());
    await done;
    await settle(el);
    expect(part(el, 'page')!.textContent!.toLowerCase()).to.contain('hello');
    await axeEverywhere(el, frame, 'a document read');
    const walk = await tabWalk(el, before, after);
    // One page: Previous and Next page are disabled; no search yet, so no match buttons.
    expect(walk).to.deep.equal([
      'drop-zone', 'url-input', 'button', 'search-input', 'copy-page-button', 'copy-all-button', 'download-button',
      'page-button', 'original-button', 'page',
    ]);
    // The original, opened with the keyboard.
    expect(await tabBack(el, after)).to.equal('page');
    await sendKeys({ down: 'Shift' });
    try {
      await sendKeys({ press: 'Tab' });
    } finally {
      await sendKeys({ up: 'Shift' });
    }
    expect(nameOf(focusedIn(el))).to.equal('original-button');
    await sendKeys({ press: 'Enter' });
    await waitFor(() => part<HTMLImageElement>(el, 'original')?.dataset.page === '1', 'the original drawn');
    await settle(el);
    expect(focusedIn(el)).to.equal(part(el, 'original-button'));
    await axeEverywhere(el, frame, 'a document with its original');
    expect((await tabWalk(el, before, after)).slice(-3)).to.deep.equal(['original-button', 'original-frame', 'page']);
  });

  it('keyboard only through pages: Enter and Space on Next page, focus kept when it is disabled; arrows in the page list follow the reading direction', async () => {
    const { el, frame, before, after } = await page<DocOcrViewer>(html`<doc-ocr-viewer relay-url=${RELAY}></doc-ocr-viewer>`);
    track(el);
    el.result = threePages;
    await settle(el);
    const walk = await tabWalk(el, before, after);
    expect(walk.slice(-3)).to.deep.equal(['page-button', 'next-page', 'page']);
    const next = el.shadowRoot!.querySelector<HTMLButtonElement>('.next-page')!;
    next.focus();
    await sendKeys({ press: 'Enter' });
    await settle(el);
    expect(el.page).to.equal(1);
    expect(focusedIn(el)).to.equal(next);
    await sendKeys({ press: ' ' });
    await settle(el);
    expect(el.page).to.equal(2);
    expect(next.disabled).to.equal(true);
    expect(nameOf(focusedIn(el)), 'focus moved from the disabled Next page to Previous page').to.equal('prev-page');

    // Left to right: ArrowRight is the next page, ArrowLeft the previous one.
    const current = () => el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="page-button"][aria-current="page"]')!;
    el.showPage(0);
    await settle(el);
    current().focus();
    await sendKeys({ press: 'ArrowRight' });
    await settle(el);
    expect(el.page).to.equal(1);
    await sendKeys({ press: 'ArrowLeft' });
    await settle(el);
    expect(el.page).to.equal(0);

    // Right to left: ArrowLeft goes forward (the next page), ArrowRight back; focus follows the current page.
    frame.dir = 'rtl';
    await settle(el);
    current().focus();
    await sendKeys({ press: 'ArrowLeft' });
    await settle(el);
    expect(el.page).to.equal(1);
    expect(focusedIn(el)).to.equal(current());
    await sendKeys({ press: 'ArrowLeft' });
    await settle(el);
    expect(el.page).to.equal(2);
    await sendKeys({ press: 'ArrowRight' });
    await settle(el);
    expect(el.page).to.equal(1);
    expect(focusedIn(el)).to.equal(current());
    await sendKeys({ press: 'ArrowDown' });
    await settle(el);
    expect(el.page, 'down is still the next page').to.equal(2);
  });
});
