// Languages of the four elements in Chromium: each element's words follow its `lang` (or an ancestor's,
// or <html lang>), shipped catalogues arrive lazily and re-render, fallbacks (fr-CA → fr, xx → English),
// `strings` overrides win, registerLocale adds a language, and error sentences are translated.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../src/elements/agent-chat/define.js';
import '../../src/elements/speech-player/define.js';
import '../../src/elements/audio-transcriber/define.js';
import '../../src/elements/doc-ocr-viewer/define.js';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import type { SpeechPlayer } from '../../src/elements/speech-player/speech-player.js';
import type { AudioTranscriber } from '../../src/elements/audio-transcriber/audio-transcriber.js';
import type { DocOcrViewer } from '../../src/elements/doc-ocr-viewer/doc-ocr-viewer.js';
import { loadLocale, registerLocale } from '../../src/index.js';
import { FakeSession } from './helpers/fake-session.js';

const RELAY = '/api';
/** A language's chunk is compiled by the dev server on its first request: room for that (not a duration asserted). */
const LOAD = { timeout: 10_000 };

const part = (el: HTMLElement, name: string) => el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
const text = (el: HTMLElement, name: string) => part(el, name)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const sendLabel = (el: AgentChat) => text(el, 'send-button');

/** What each shipped language shows: the chat's send button and placeholder, the player's play button, the drop zones. */
const expected = {
  en: { send: 'Send', placeholder: 'Write a message…', play: 'Play', record: 'Start recording', chooseAudio: 'Choose an audio file', chooseDoc: 'Choose a PDF or an image', network: 'The chat service could not be reached. Check your connection and try again.', notAudio: 'That file is not audio', notDocument: 'not a PDF or an image' },
  fr: { send: 'Envoyer', placeholder: 'Écrivez un message…', play: 'Lire', record: 'Démarrer l’enregistrement', chooseAudio: 'Choisir un fichier audio', chooseDoc: 'Choisir un PDF ou une image', network: 'Le service de discussion est injoignable. Vérifiez votre connexion et réessayez.', notAudio: 'Ce fichier n’est pas un fichier audio', notDocument: 'n’est ni un PDF ni une image' },
  de: { send: 'Senden', placeholder: 'Nachricht schreiben…', play: 'Abspielen', record: 'Aufnahme starten', chooseAudio: 'Audiodatei auswählen', chooseDoc: 'PDF oder Bild auswählen', network: 'Der Chat-Dienst ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.', notAudio: 'Diese Datei ist keine Audiodatei', notDocument: 'weder ein PDF noch ein Bild' },
  es: { send: 'Enviar', placeholder: 'Escribe un mensaje…', play: 'Reproducir', record: 'Empezar a grabar', chooseAudio: 'Elegir un archivo de audio', chooseDoc: 'Elegir un PDF o una imagen', network: 'No se pudo conectar con el servicio de chat. Comprueba tu conexión e inténtalo de nuevo.', notAudio: 'Ese archivo no es de audio', notDocument: 'no es un PDF ni una imagen' },
  ar: { send: 'إرسال', placeholder: 'اكتب رسالة…', play: 'تشغيل', record: 'بدء التسجيل', chooseAudio: 'اختر ملفًا صوتيًا', chooseDoc: 'اختر ملف PDF أو صورة', network: 'تعذّر الوصول إلى خدمة المحادثة. تحقّق من اتصالك وحاول مرة أخرى.', notAudio: 'هذا الملف ليس ملفًا صوتيًا', notDocument: 'ليس ملف PDF ولا صورة' },
} as const;
type Tag = keyof typeof expected;

async function chat(lang: string, strings: Record<string, unknown> | null = null): Promise<{ el: AgentChat; session: FakeSession }> {
  const session = new FakeSession();
  const el = await fixture<AgentChat>(html`<agent-chat lang=${lang} .session=${session} .strings=${strings}></agent-chat>`);
  return { el, session };
}

function pickFile(el: HTMLElement, file: File): void {
  const input = el.shadowRoot!.querySelector<HTMLInputElement>('input[type="file"]')!;
  const transfer = new DataTransfer();
  transfer.items.add(file);
  input.files = transfer.files;
  input.dispatchEvent(new Event('change'));
}

describe('languages', () => {
  for (const tag of ['fr', 'de', 'es', 'ar'] as const satisfies readonly Tag[]) {
    const want = expected[tag];

    it(`<agent-chat lang="${tag}">: its words and a translated error sentence; the upstream detail is not shown`, async () => {
      const { el, session } = await chat(tag);
      await waitUntil(() => sendLabel(el) === want.send, `send button in ${tag}`, LOAD);
      const input = el.shadowRoot!.querySelector('textarea')!;
      expect(input.placeholder).to.equal(want.placeholder);
      session.set({ status: 'error', error: { status: 0, type: 'network_error', code: null, message: 'Failed to fetch', retryAfter: null } });
      await el.updateComplete;
      const shown = text(el, 'error');
      expect(shown).to.contain(want.network);
      expect(shown).not.to.contain('Failed to fetch');
      expect(part(el, 'retry-button')!.textContent!.trim()).not.to.equal('Try again');
    });

    it(`<speech-player lang="${tag}"> shows its buttons in ${tag}`, async () => {
      const el = await fixture<SpeechPlayer>(html`<speech-player lang=${tag} relay-url=${RELAY} text="Hi"></speech-player>`);
      await waitUntil(() => text(el, 'play-button') === want.play, `play button in ${tag}`, LOAD);
    });

    it(`<audio-transcriber lang="${tag}">: its words, and a refused file in ${tag}`, async () => {
      const el = await fixture<AudioTranscriber>(html`<audio-transcriber lang=${tag} relay-url=${RELAY}></audio-transcriber>`);
      await waitUntil(() => text(el, 'record-button') === want.record, `record button in ${tag}`, LOAD);
      expect(text(el, 'drop-zone')).to.contain(want.chooseAudio);
      const error = oneEvent(el, 'parley-transcription-error');
      pickFile(el, new File(['hello'], 'notes.txt', { type: 'text/plain' }));
      expect((await error).detail.message).to.contain(want.notAudio);
      await el.updateComplete;
      expect(text(el, 'error')).to.contain(want.notAudio);
    });

    it(`<doc-ocr-viewer lang="${tag}">: its words, and a refused file in ${tag}`, async () => {
      const el = await fixture<DocOcrViewer>(html`<doc-ocr-viewer lang=${tag} relay-url=${RELAY}></doc-ocr-viewer>`);
      await waitUntil(() => text(el, 'drop-zone').includes(want.chooseDoc), `drop zone in ${tag}`, LOAD);
      const error = oneEvent(el, 'parley-ocr-error');
      void el.read(new File(['just text'], 'notes.txt', { type: 'text/plain' }));
      expect((await error).detail.message).to.contain(want.notDocument);
      await el.updateComplete;
      expect(text(el, 'error')).to.contain(want.notDocument);
    });
  }

  it('<speech-player> tells a refused request in the element’s language (a real 422 from the platform)', async () => {
    await loadLocale('fr');
    const el = await fixture<SpeechPlayer>(html`<speech-player lang="fr" relay-url=${RELAY} text="Bonjour" voice="no-such-voice"></speech-player>`);
    const error = oneEvent(el, 'parley-speech-error');
    void el.speak();
    expect((await error).detail.error.status).to.equal(422);
    await el.updateComplete;
    expect(text(el, 'error')).to.contain('La demande de synthèse vocale n’a pas été acceptée.');
  });

  it('fr-CA falls back to fr, an unknown language to English; Arabic counts with its plural forms', async () => {
    const canadian = await chat('fr-CA');
    await waitUntil(() => sendLabel(canadian.el) === 'Envoyer', 'fr-CA → fr', LOAD);
    const unknown = await chat('xx');
    await canadian.el.updateComplete;
    expect(sendLabel(unknown.el)).to.equal('Send');
    await loadLocale('ar');
    const arabic = await chat('ar');
    arabic.session.set({ status: 'error', error: { status: 429, type: 'rate_limit_error', code: null, message: 'slow down', retryAfter: 2 } });
    await arabic.el.updateComplete;
    expect(text(arabic.el, 'error')).to.contain('حاول مرة أخرى بعد ثانيتين.');
  });

  it('follows the nearest ancestor’s lang, then <html lang>, and re-renders when either changes', async () => {
    await Promise.all([loadLocale('de'), loadLocale('es'), loadLocale('fr')]);
    const wrapper = await fixture<HTMLDivElement>(html`<div lang="de"><section><agent-chat .session=${new FakeSession()}></agent-chat></section></div>`);
    const el = wrapper.querySelector('agent-chat')!;
    await el.updateComplete;
    expect(sendLabel(el)).to.equal('Senden');
    wrapper.lang = 'es';
    await waitUntil(() => sendLabel(el) === 'Enviar', 'ancestor lang change re-renders', LOAD);
    el.setAttribute('lang', 'fr');
    await waitUntil(() => sendLabel(el) === 'Envoyer', 'own lang wins and its change re-renders', LOAD);

    const page = document.documentElement;
    const before = page.getAttribute('lang');
    try {
      const plain = await fixture<AgentChat>(html`<agent-chat .session=${new FakeSession()}></agent-chat>`);
      page.lang = 'de';
      await waitUntil(() => sendLabel(plain) === 'Senden', '<html lang> change re-renders', LOAD);
      page.lang = 'en';
      await waitUntil(() => sendLabel(plain) === 'Send', 'back to English', LOAD);
    } finally {
      if (before === null) page.removeAttribute('lang');
      else page.setAttribute('lang', before);
    }
  });

  it('inside another element’s shadow root: the host’s lang, and the element’s own lang change', async () => {
    await loadLocale('es');
    const host = await fixture<HTMLDivElement>(html`<div lang="es"></div>`);
    const root = host.attachShadow({ mode: 'open' });
    const el = document.createElement('agent-chat');
    el.session = new FakeSession();
    root.append(el);
    await el.updateComplete;
    expect(sendLabel(el)).to.equal('Enviar');
    el.setAttribute('lang', 'de');
    await loadLocale('de');
    await waitUntil(() => sendLabel(el) === 'Senden', 'own lang change inside a shadow root', LOAD);
  });

  it('`strings` overrides win over the language', async () => {
    await loadLocale('fr');
    const { el } = await chat('fr', { send: 'Go!' });
    await el.updateComplete;
    expect(sendLabel(el)).to.equal('Go!');
    expect(el.shadowRoot!.querySelector('textarea')!.placeholder).to.equal('Écrivez un message…');
    const player = await fixture<SpeechPlayer>(html`<speech-player lang="fr" text="Hi" .strings=${{ play: 'Écouter' }}></speech-player>`);
    await player.updateComplete;
    expect(text(player, 'play-button')).to.equal('Écouter');
  });

  it('registerLocale adds a language for every element; left-out strings fall back along the tag, then to English', async () => {
    registerLocale('pt', {
      agentChat: { send: 'Enviar mensagem', inputPlaceholder: 'Escreva uma mensagem…' },
      speechPlayer: { play: 'Reproduzir' },
    });
    const { el } = await chat('pt-BR');
    await el.updateComplete;
    expect(sendLabel(el)).to.equal('Enviar mensagem');
    expect(el.shadowRoot!.querySelector('textarea')!.placeholder).to.equal('Escreva uma mensagem…');
    expect(text(el, 'empty')).to.equal('Ask anything to start the conversation.');
    const player = await fixture<SpeechPlayer>(html`<speech-player lang="pt" text="Olá"></speech-player>`);
    await player.updateComplete;
    expect(text(player, 'play-button')).to.equal('Reproduzir');

    // A regional variant over a shipped language: its own words, then French, then English.
    registerLocale('fr-CH', { agentChat: { send: 'Envoyer (CH)' } });
    await loadLocale('fr');
    const swiss = await chat('fr-CH');
    await swiss.el.updateComplete;
    expect(sendLabel(swiss.el)).to.equal('Envoyer (CH)');
    expect(swiss.el.shadowRoot!.querySelector('textarea')!.placeholder).to.equal('Écrivez un message…');

    // Registering again re-renders the elements already showing that language.
    registerLocale('pt', { agentChat: { send: 'Mandar' } });
    await waitUntil(() => sendLabel(el) === 'Mandar', 'a registered language re-renders its elements', LOAD);
  });
});
