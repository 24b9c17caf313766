// Each element's main flows as a visitor meets them on the demo pages of `parley start`, in Chromium, Firefox ESR
// and WebKitGTK (harness/engines.ts): a chat that streams markdown, keeps its history across a reload and resumes a
// reply cut by one, its search, the phone launcher, speech played, a PDF read, a WAV file and the microphone
// written down. Where an engine fakes only a tone for the microphone, the test says so and checks that the
// transcriber records and ends in words, not with an error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, useEngine, type EnginePage } from './harness/engines.js';
import { parleyStartUrl, ROOT } from './harness/parley-start.js';
import { textPdfSource } from '../fixtures/text-pdf.js';

let child: ChildProcess;
let url: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'parley-engines-'));
  // 20 ms a token: the markdown demonstration streams for a few seconds, long enough to reload in the middle.
  child = spawn(process.execPath, [join(ROOT, 'platform/bin/parley.js'), 'start', '--port', '0', '--data', dataDir, '--token-delay', '20'], {
    cwd: ROOT, env: { ...process.env, PLATFORM_API_KEY: '', PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  ({ url } = await parleyStartUrl(child));
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Polls `check` in the page until it returns a truthy value (its value), or fails naming `what`. Checks return
 * JSON values, never elements (an element crosses WebDriver BiDi as undefined).
 */
async function until<A, R>(page: EnginePage, what: string, check: (arg: A) => R | Promise<R>, arg?: A, timeoutMs = 30_000): Promise<R> {
  const end = Date.now() + timeoutMs;
  let last: R | undefined;
  while (Date.now() < end) {
    last = await page.run(check, arg);
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not seen within ${timeoutMs / 1000} s (last: ${JSON.stringify(last)})`);
}

/**
 * Types `text` into the chat's message box and presses Enter once the chat can send (its send button is enabled
 * once its relay session is up), in the page, as the element's tests do.
 */
async function send(page: EnginePage, text: string): Promise<void> {
  await page.run(async (t: string) => {
    await customElements.whenDefined('agent-chat');
    const chat = document.querySelector('agent-chat') as HTMLElement & { updateComplete: Promise<unknown> };
    await chat.updateComplete;
    const box = chat.shadowRoot!.querySelector<HTMLTextAreaElement>('[part="input"]')!;
    box.focus();
    box.value = t;
    box.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
  }, text);
  await until(page, 'the send button enabled', () => {
    const button = document.querySelector('agent-chat')!.shadowRoot!.querySelector<HTMLButtonElement>('[part="send-button"]');
    return button !== null && !button.disabled;
  });
  await page.run(() => {
    const box = document.querySelector('agent-chat')!.shadowRoot!.querySelector<HTMLTextAreaElement>('[part="input"]')!;
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true, cancelable: true }));
  });
}

/** What the chat shows: user messages and replies' text, whether it is ready for another message, any error. */
function chatState(page: EnginePage) {
  return page.run(() => {
    const root = document.querySelector('agent-chat')!.shadowRoot!;
    return {
      users: [...root.querySelectorAll('[part~="message-user"]')].map((m) => m.textContent!.trim()),
      replies: [...root.querySelectorAll('[part~="message-assistant"] [part~="bubble"]')].map((m) => m.textContent!.trim()),
      tables: root.querySelectorAll('[part~="message-assistant"] table').length,
      ready: root.querySelector('[part="send-button"]') !== null,
      error: root.querySelector('[part~="error"]')?.textContent?.trim() ?? null,
    };
  });
}

/**
 * Presses the gallery's player (with `text` in its box, when given) once it is there, recording its events in
 * `window.speech` (an error with its detail) and the codes of its errors in `window.codes`.
 */
async function play(page: EnginePage, text?: string): Promise<void> {
  await until(page, 'the player', () => !!document.querySelector('speech-player')?.shadowRoot?.querySelector('[part="play-button"]'));
  await page.run((typed: string | null) => {
    const w = window as unknown as { speech: string[]; codes: string[] };
    w.speech = [];
    w.codes = [];
    const player = document.querySelector('speech-player')!;
    for (const type of ['parley-speech-first-audio', 'parley-speech-end', 'parley-speech-error']) {
      player.addEventListener(type, (e) => {
        const detail = (e as CustomEvent).detail;
        if (type === 'parley-speech-error') w.codes.push(detail.error?.code ?? '?');
        w.speech.push(type === 'parley-speech-error' ? `${type}: ${JSON.stringify(detail)}` : type);
      });
    }
    if (typed !== null) (document.querySelector('#speech-text') as HTMLTextAreaElement).value = typed;
    player.shadowRoot!.querySelector<HTMLElement>('[part="play-button"]')!.click();
  }, text ?? null);
}

const MARKDOWN_PROMPT = 'Show me everything in markdown, please: headings, a table, code, a list and links.';

describe.each(ENGINES)('%s', (engine) => {
  const engineBrowser = useEngine(engine);

  it('the chat streams markdown, keeps it across a reload, resumes a reply cut by a reload, and searches it', async () => {
    const browser = engineBrowser();
    const page = await browser.newPage();
    try {
      await page.goto(url + '/');
      await send(page, MARKDOWN_PROMPT);
      await until(page, 'the markdown reply with its table', () => {
        const root = document.querySelector('agent-chat')!.shadowRoot!;
        return !!root.querySelector('[part~="message-assistant"] table') && !!root.querySelector('[part="send-button"]');
      }, undefined, 60_000).catch(async (error) => {
        throw new Error(`${(error as Error).message}; the chat: ${JSON.stringify(await chatState(page))}`);
      });
      const first = await chatState(page);
      expect(first.error).toBe(null);
      expect(first.replies).toHaveLength(1);

      // History after a reload: the same conversation from the page's store.
      await page.reload();
      await until(page, 'the history after the reload', (reply: string) => {
        const root = document.querySelector('agent-chat')?.shadowRoot;
        const shown = [...(root?.querySelectorAll('[part~="message-assistant"] [part~="bubble"]') ?? [])].map((m) => m.textContent!.trim());
        return shown.length === 1 && shown[0] === reply && !!root!.querySelector('[part~="message-assistant"] table');
      }, first.replies[0]);

      // A reply cut by a reload mid-stream is resumed by the reopened page and ends with the same text.
      await send(page, MARKDOWN_PROMPT);
      await until(page, 'the second reply streaming', () => {
        const replies = document.querySelector('agent-chat')!.shadowRoot!.querySelectorAll('[part~="message-assistant"]');
        return replies.length === 2 && (replies[1]!.textContent ?? '').length > 40;
      });
      await page.reload();
      await until(page, 'the resumed reply, ended', () => {
        const root = document.querySelector('agent-chat')?.shadowRoot;
        return !!root && root.querySelectorAll('[part~="message-assistant"] table').length === 2 && !!root.querySelector('[part="send-button"]');
      }, undefined, 60_000);
      const resumed = await chatState(page);
      expect(resumed.error).toBe(null);
      expect(resumed.replies, JSON.stringify(resumed)).toEqual([first.replies[0], first.replies[0]]);

      // Search: the chat's own, from its header; Enter marks the current match.
      const marked = await page.run(async () => {
        const root = document.querySelector('agent-chat')!.shadowRoot!;
        root.querySelector<HTMLButtonElement>('[part~="search-button"]')!.click();
        let field: HTMLInputElement | null = null;
        for (let i = 0; i < 100 && !field; i++) {
          await new Promise((r) => setTimeout(r, 50));
          field = root.querySelector<HTMLInputElement>('[part~="search-input"]');
        }
        if (!field) return 'no search field';
        field.value = 'everything in markdown';
        field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true, cancelable: true }));
        for (let i = 0; i < 100; i++) {
          await new Promise((r) => setTimeout(r, 50));
          const current = root.querySelector('.message.search-current');
          if (current) return current.textContent!.includes('everything in markdown') ? 'marked' : 'wrong match';
        }
        return 'no match marked';
      });
      expect(marked).toBe('marked');
    } finally {
      await page.close();
    }
  }, 180_000);

  it('the phone launcher opens a modal panel with the focus in its message box, and Escape closes it', async () => {
    const browser = engineBrowser();
    const page = await browser.newPage({ width: 390, height: 760 });
    try {
      await page.goto(url + '/shop.html');
      await until(page, 'the launcher', () => !!document.querySelector('agent-chat')?.shadowRoot?.querySelector('[part="launcher"]'));
      await page.run(() => document.querySelector('agent-chat')!.shadowRoot!.querySelector<HTMLElement>('[part="launcher"]')!.click());
      const opened = await until(page, 'the open panel with the focus in the message box', () => {
        const root = document.querySelector('agent-chat')!.shadowRoot!;
        const dialog = root.querySelector('dialog');
        if (!dialog || root.activeElement?.getAttribute('part') !== 'input') return null;
        const box = dialog.getBoundingClientRect();
        // The page's width without its scrollbar (Firefox's headless one is classic, 12 px).
        return { modal: dialog.getAttribute('aria-modal'), width: Math.round(box.width), viewport: document.documentElement.clientWidth };
      });
      expect(opened.modal).toBe('true');
      // The phone's panel takes the whole width.
      expect(opened.width).toBeGreaterThanOrEqual(opened.viewport);
      await page.run(() => {
        const box = document.querySelector('agent-chat')!.shadowRoot!.querySelector<HTMLElement>('[part="input"]')!;
        box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true, cancelable: true }));
      });
      await until(page, 'the launcher focused again', () => document.querySelector('agent-chat')!.shadowRoot!.activeElement?.getAttribute('part') === 'launcher');
    } finally {
      await page.close();
    }
  }, 90_000);

  it('speaks typed text with <speech-player>: first audio, then the end', async () => {
    const browser = engineBrowser();
    const page = await browser.newPage();
    try {
      await page.goto(url + '/');
      await play(page, 'Hello from the shop.');
      const events = await until(page, 'the end of speech', () => {
        const speech = (window as unknown as { speech: string[] }).speech;
        return speech.some((s) => s !== 'parley-speech-first-audio') ? speech : null;
      });
      expect(events).toEqual(['parley-speech-first-audio', 'parley-speech-end']);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('reads a PDF page by page in <doc-ocr-viewer>', async () => {
    const browser = engineBrowser();
    const page = await browser.newPage();
    try {
      await page.goto(url + '/documents.html');
      await until(page, 'the viewer', () => !!document.querySelector('doc-ocr-viewer')?.shadowRoot?.querySelector('input[type="file"]'));
      await page.run((pdf: string) => {
        const input = document.querySelector('doc-ocr-viewer')!.shadowRoot!.querySelector<HTMLInputElement>('input[type="file"]')!;
        const files = new DataTransfer();
        files.items.add(new File([pdf], 'apples.pdf', { type: 'application/pdf' }));
        input.files = files.files;
        input.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
      }, textPdfSource(2));
      await until(page, 'both pages read', () => {
        const root = document.querySelector('doc-ocr-viewer')!.shadowRoot!;
        const text = root.querySelector('[part="page"]')?.textContent ?? '';
        return /Page 1 says apples/.test(text) && root.querySelectorAll('[part="page-button"]').length === 2;
      }, undefined, 60_000);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('writes down a WAV file given to the gallery\'s transcriber as shipped, then records from the microphone', async () => {
    const browser = engineBrowser();
    const page = await browser.newPage();
    try {
      await page.goto(url + '/');
      await until(page, 'the transcriber', () => !!document.querySelector('audio-transcriber')?.shadowRoot?.querySelector('input[type="file"]'));
      await page.run((wav: string) => {
        const bytes = Uint8Array.from(atob(wav), (c) => c.charCodeAt(0));
        const input = document.querySelector('audio-transcriber')!.shadowRoot!.querySelector<HTMLInputElement>('input[type="file"]')!;
        const files = new DataTransfer();
        files.items.add(new File([bytes], 'fox.wav', { type: 'audio/wav' }));
        input.files = files.files;
        input.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
      }, readFileSync(join(ROOT, 'test/fixtures/transcription/fox.wav')).toString('base64'));
      await until(page, 'the file written down', () => {
        const root = document.querySelector('audio-transcriber')!.shadowRoot!;
        const text = root.querySelector('[part="transcript"]')?.textContent ?? '';
        const error = root.querySelector('[part~="error"]')?.textContent?.trim();
        return error ? `error: ${error}` : /fox/i.test(text) ? 'written' : null;
      }, undefined, 60_000).then((result) => expect(result).toBe('written'));

      // The microphone: Chromium's is a WAV sentence; Firefox's and WebKit's fakes are a tone, which has no
      // words: there the transcriber records, stops, and says so in words rather than failing.
      await page.run(() => {
        const root = document.querySelector('audio-transcriber')!.shadowRoot!;
        root.querySelector<HTMLElement>('[part="record-button"]')!.click();
      });
      if (browser.speakingMicrophone) {
        await until(page, 'the microphone written down', () => /fox/i.test(document.querySelector('audio-transcriber')!.shadowRoot!.querySelector('[part="transcript"]')?.textContent ?? ''));
      } else {
        // Listening (said once the microphone's audio runs: Firefox takes about 2 s to start it), then a moment of tone.
        await until(page, 'listening ("Recording" said)', () => /^Recording/.test(document.querySelector('audio-transcriber')!.shadowRoot!.querySelector('.visually-hidden[role="status"]')?.textContent ?? ''));
        await new Promise((r) => setTimeout(r, 1500));
      }
      await page.run(() => document.querySelector('audio-transcriber')!.shadowRoot!.querySelector<HTMLElement>('[part="record-button"]')!.click());
      const end = await until(page, 'the recording ended', () => {
        const root = document.querySelector('audio-transcriber')!.shadowRoot!;
        if (root.querySelector('[part="record-button"]')?.getAttribute('aria-pressed') === 'true') return null;
        const error = root.querySelector('[part~="error"]')?.textContent?.trim() ?? null;
        // The element's polite live region (LiveRegionController): "Nothing was heard." after a tone.
        const said = root.querySelector('.visually-hidden[role="status"][aria-live="polite"]')?.textContent?.trim() ?? '';
        // Past "Recording" and "Finishing the transcript…": what the recording ended with.
        return error || (said && !/^(Recording|Finishing)/.test(said)) ? { error, said } : null;
      });
      if (browser.speakingMicrophone) expect(end.error).toBe(null);
      else {
        // A tone has no words: pocketsphinx may still make a syllable of it ("Transcribed: ah" in Firefox).
        expect(end.error).toBe(null);
        expect(end.said).toMatch(/^(Nothing was heard\.|Transcribed: )/);
      }
    } finally {
      await page.close();
    }
  }, 120_000);
});

// A browser with no sound device (its sound server pointed nowhere). Firefox never starts an AudioContext
// there: the player says so in words and fires its error, instead of "playing" at 0:00. WebKitGTK's context
// runs without one (its GStreamer pipeline falls back to a sink of its own), so there the player plays to the
// end. Chromium's headless build has a device of its own whatever the host has: its no-sound path is the
// browser suite's (test/browser/audio-not-started.test.ts, a context that never starts, in all three engines).
describe.each(ENGINES.filter((e) => e !== 'chromium'))('%s with no sound device', (engine) => {
  const engineBrowser = useEngine(engine, { noSound: true });

  it('the player says in words that no sound can be played (Firefox), or plays to the end (WebKit): never stuck', async () => {
    const browser = engineBrowser();
    const page = await browser.newPage();
    try {
      await page.goto(url + '/');
      await play(page);
      const shown = await until(page, 'the words or the end', () => {
        const w = window as unknown as { speech: string[]; codes: string[] };
        const ended = w.speech.includes('parley-speech-end');
        const error = document.querySelector('speech-player')!.shadowRoot!.querySelector('[part~="error"]')?.textContent?.trim() ?? null;
        return error || ended ? { error, codes: w.codes, ended } : null;
      });
      if (engine === 'firefox') {
        expect(shown.error).toContain('No sound can be played on this device');
        expect(shown.codes).toEqual(['audio_not_started']);
      } else {
        expect(shown).toEqual({ error: null, codes: [], ended: true });
      }
    } finally {
      await page.close();
    }
  }, 90_000);
});
