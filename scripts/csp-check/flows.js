// The flows the CSP check runs, engine-agnostic: each resolves with a short summary once the element has
// done its work, or rejects saying what did not happen. A driver calls them with
// `await window.cspFlows.<name>()` (after a click on the page, so audio may start), then reads
// `window.cspViolations`.
const $ = (id) => document.getElementById(id);
const shadow = (el, selector) => el.shadowRoot?.querySelector(selector) ?? null;

function until(what, test, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      let value;
      try { value = test(); } catch (error) { reject(error); return; }
      if (value) resolve(value);
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 100);
    };
    tick();
  });
}

const defined = Promise.all(['agent-chat', 'speech-player', 'audio-transcriber', 'doc-ocr-viewer'].map((n) => customElements.whenDefined(n)));

window.cspFlows = {
  /** A markdown reply streamed into <agent-chat>. */
  async chat() {
    await defined;
    const chat = $('chat');
    // The demo's agent (`parley start` made it; its relay policy allows it), as the gallery's demo.js does.
    const config = await (await fetch('/demo-config.json')).json();
    if (config.agentId) chat.setAttribute('agent-id', config.agentId);
    else if (config.model) chat.setAttribute('model', config.model);
    await chat.updateComplete;
    await chat.send('Show me some markdown');
    await until('a markdown table in the reply', () => shadow(chat, '[part~="message-assistant"] table'), 45_000)
      .catch((error) => { throw new Error(`${error.message}; the chat shows: ${chat.shadowRoot?.textContent?.replace(/\s+/g, ' ').slice(0, 400)}`); });
    await until('the reply to end', () => shadow(chat, '[part="send-button"]'));
    return 'chat: markdown reply streamed';
  },
  /** <speech-player> speaks a sentence to its end. */
  async speech() {
    await defined;
    const player = $('player');
    const events = [];
    const ended = new Promise((resolve, reject) => {
      player.addEventListener('parley-speech-first-audio', () => events.push('first-audio'));
      player.addEventListener('parley-speech-end', () => resolve());
      player.addEventListener('parley-speech-error', (e) => reject(new Error(`speech error: ${e.detail?.kind ?? ''} ${e.detail?.message ?? ''}`)));
    });
    void player.speak('Hello from a page with a strict policy.');
    await ended;
    return `speech: ${events.join(', ')}, end`;
  },
  /** <doc-ocr-viewer> reads a PDF and draws its original with pdf.js. */
  async pdf() {
    await defined;
    const viewer = $('viewer');
    const blob = await (await fetch('/csp-check/doc.pdf')).blob();
    await viewer.read(new File([blob], 'report.pdf', { type: 'application/pdf' }));
    await until('the page text', () => /Quarterly/i.test(shadow(viewer, '[part="page"]')?.textContent ?? ''));
    viewer.toggleOriginal(true);
    await until('the original drawn by pdf.js', () => shadow(viewer, 'img[part="original"]'));
    return 'pdf: read, original drawn';
  },
  /**
   * Markdown with character references (the renderer decodes them through the kit's Trusted Types policy,
   * `parley-kit`), shown by <doc-ocr-viewer> as a result set by script. Run it after pdf().
   */
  async entities() {
    await defined;
    const viewer = $('viewer');
    viewer.result = { model: 'mistral-ocr-latest', document_annotation: null, usage_info: { pages_processed: 1, doc_size_bytes: null },
      pages: [{ index: 0, images: [], dimensions: null, markdown: 'Fish &amp; chips &#x2014; [the menu](https://example.com/menu?a=1&amp;b=2)' }] };
    const link = await until('the decoded text and link', () => {
      const page = shadow(viewer, '[part="page"]');
      return page?.textContent?.includes('Fish & chips \u2014 the menu') && page.querySelector('a');
    });
    if (link.getAttribute('href') !== 'https://example.com/menu?a=1&b=2') throw new Error(`link href ${link.getAttribute('href')}`);
    return 'entities: decoded in text and link';
  },
  /**
   * <audio-transcriber> records the (fake) microphone: with `words` (Chromium's fake microphone says a
   * sentence) until the words are written down; without (Firefox's fake microphone is a tone) for
   * `seconds` of streaming, then stops. Rejects on the element's error event.
   */
  async mic({ words = true, seconds = 3 } = {}) {
    await defined;
    const transcriber = $('transcriber');
    let failure = null;
    const onError = (e) => { failure = new Error(`transcription error: ${e.detail?.kind} ${e.detail?.message ?? ''}`); };
    transcriber.addEventListener('parley-transcription-error', onError);
    try {
      await transcriber.startRecording();
      const button = () => shadow(transcriber, '[part="record-button"]');
      await until('recording', () => { if (failure) throw failure; return button()?.getAttribute('aria-pressed') === 'true'; });
      if (words) await until('words from the microphone', () => { if (failure) throw failure; return /fox/i.test(shadow(transcriber, '[part="transcript"]')?.textContent ?? ''); });
      else await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      await transcriber.stopRecording();
      if (failure) throw failure;
      return words ? 'mic: recorded, words written' : `mic: recorded ${seconds} s`;
    } finally {
      transcriber.removeEventListener('parley-transcription-error', onError);
    }
  },
};
