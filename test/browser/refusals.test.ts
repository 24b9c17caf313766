// Refusals that retrying cannot fix (a model or agent the session may not use, a size, a type), from a real relay
// whose policy allows only the model `parley-local`, no agent, and transcriptions of 4 KB (`restricted` in
// test/browser/server/relay-middleware.mjs). Each element offers no retry, shows a neutral sentence, and the
// site owner reads one console line naming the setting to change.
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/elements/agent-chat/define.js';
import '../../src/elements/speech-player/define.js';
import '../../src/elements/audio-transcriber/define.js';
import '../../src/elements/doc-ocr-viewer/define.js';
import type { ParleyErrorDetail } from '../../src/elements/internal/events.js';

interface Fixtures { model: string; agents: { support: string }; crossOrigin: { restricted: string } }
let fixtures: Fixtures;
let relay: string;

before(async () => {
  fixtures = await (await fetch('/api-test/fixtures')).json();
  relay = fixtures.crossOrigin.restricted;
});

const shadow = (el: Element) => el.shadowRoot!;

/** console.error lines logged from now on (`stop()` puts console.error back and returns them). */
function recordConsoleErrors(): { stop(): string[] } {
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => { logged.push(args.map(String).join(' ')); };
  return { stop: () => { console.error = original; return logged; } };
}

async function shownError(el: Element): Promise<string> {
  await waitUntil(() => shadow(el).querySelector('[part~="error"]'), 'the error is shown', { timeout: 12_000 });
  return shadow(el).querySelector('[part~="error"]')!.textContent!.trim();
}

/** The one console line about this refusal: it names the code and each of `settings`. */
function ownerLine(logged: string[], code: string, settings: string[]): string {
  const lines = logged.filter((line) => line.includes(code));
  expect(lines, `console: ${logged.join(' | ')}`).to.have.length(1);
  for (const setting of settings) expect(lines[0]).to.contain(setting);
  expect(lines[0]).to.contain('Retrying cannot help');
  return lines[0]!;
}

async function send(el: Element, text: string) {
  shadow(el).querySelector<HTMLTextAreaElement>('[part~="input"]')!.focus();
  await sendKeys({ type: text });
  await sendKeys({ press: 'Enter' });
}

describe('refusals that retrying cannot fix', () => {
  const chats: [string, string, string[], () => ReturnType<typeof html>][] = [
    ['an agent', 'agent_not_allowed', ['policy', 'agents', '--agent', 'agent-id'],
      () => html`<agent-chat relay-url=${relay} agent-id=${fixtures.agents.support} resume="none"></agent-chat>`],
    ['a model', 'model_not_allowed', ['policy', 'models', '--model', '`model` attribute'],
      () => html`<agent-chat relay-url=${relay} model="mistral-large-latest" resume="none"></agent-chat>`],
  ];
  for (const [what, code, settings, template] of chats) {
    it(`<agent-chat> with ${what} the relay does not allow: a neutral sentence, no retry, the setting in the console`, async () => {
      const log = recordConsoleErrors();
      const el = await fixture(template());
      const errors: ParleyErrorDetail[] = [];
      el.addEventListener('parley-error', (e) => errors.push((e as CustomEvent<ParleyErrorDetail>).detail));
      await send(el, 'Hello?');
      const shown = await shownError(el);
      const logged = log.stop();
      expect(errors.map((d) => d.error.code)).to.include(code);
      expect(shown).to.equal('This assistant is not available on this page.');
      expect(shadow(el).querySelector('[part="retry-button"]'), 'no retry').to.equal(null);
      ownerLine(logged, code, settings);
    });
  }

  it('<speech-player> with a model the relay does not allow', async () => {
    const log = recordConsoleErrors();
    const el = await fixture(html`<speech-player relay-url=${relay} model="parley-espeak" text="Hello there"></speech-player>`);
    const failed: { error: { code: string | null } }[] = [];
    el.addEventListener('parley-speech-error', (e) => failed.push((e as CustomEvent).detail));
    await (el as unknown as { speak(): Promise<void> }).speak();
    const shown = await shownError(el);
    const logged = log.stop();
    expect(failed.map((d) => d.error.code)).to.deep.equal(['model_not_allowed']);
    expect(shown).to.equal('Speech is not available on this page.');
    ownerLine(logged, 'model_not_allowed', ['policy', 'models', '--model']);
  });

  it('<audio-transcriber> with its default model, which the relay does not allow', async () => {
    const log = recordConsoleErrors();
    const el = await fixture(html`<audio-transcriber relay-url=${relay}></audio-transcriber>`);
    const kinds: string[] = [];
    el.addEventListener('parley-transcription-error', (e) => kinds.push((e as CustomEvent).detail.kind));
    await (el as unknown as { transcribeFile(file: Blob): Promise<void> }).transcribeFile(new Blob([new Uint8Array(64)], { type: 'audio/wav' }));
    const shown = await shownError(el);
    const logged = log.stop();
    expect(kinds).to.deep.equal(['not-available']);
    expect(shown).to.equal('Transcription is not available on this page.');
    expect(shown).to.not.match(/try again/i);
    ownerLine(logged, 'model_not_allowed', ['policy', 'models', '--model', '`model` attribute']);
  });

  it('<audio-transcriber>: a file over the relay\'s size limit, and one the relay refuses by type', async () => {
    const log = recordConsoleErrors();
    const el = await fixture(html`<audio-transcriber relay-url=${relay} model="parley-local"></audio-transcriber>`);
    const kinds: string[] = [];
    el.addEventListener('parley-transcription-error', (e) => kinds.push((e as CustomEvent).detail.kind));
    const transcribe = (file: Blob) => (el as unknown as { transcribeFile(file: Blob): Promise<void> }).transcribeFile(file);
    await transcribe(new Blob([new Uint8Array(64 * 1024)], { type: 'audio/wav' }));
    const tooLarge = await shownError(el);
    expect(kinds).to.deep.equal(['too-large']);
    expect(tooLarge).to.equal('That file is too large to transcribe. Choose a shorter recording or a smaller file.');
    await transcribe(new Blob([new Uint8Array(64)], { type: 'audio/wav' })); // zeros: no audio container's first bytes
    await waitUntil(() => kinds.length === 2, 'the second file fails', { timeout: 12_000 });
    const logged = log.stop();
    expect(kinds).to.deep.equal(['too-large', 'not-audio']);
    expect(await shownError(el)).to.not.match(/try again/i);
    ownerLine(logged, '(413 request_too_large', ['bodyLimits']);
    ownerLine(logged, '(415 unsupported_file_type', ['send a type the route takes']);
  });

  it('<doc-ocr-viewer> with its default model, which the relay does not allow', async () => {
    const log = recordConsoleErrors();
    const el = await fixture(html`<doc-ocr-viewer relay-url=${relay}></doc-ocr-viewer>`);
    const kinds: string[] = [];
    el.addEventListener('parley-ocr-error', (e) => kinds.push((e as CustomEvent).detail.kind));
    const image = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], { type: 'image/png' });
    await (el as unknown as { read(document: Blob): Promise<void> }).read(image);
    const shown = await shownError(el);
    const logged = log.stop();
    expect(kinds).to.deep.equal(['not-available']);
    expect(shown).to.equal('Document reading is not available on this page.');
    ownerLine(logged, 'model_not_allowed', ['policy', 'models', '--model']);
  });
});
