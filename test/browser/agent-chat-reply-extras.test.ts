// <agent-chat>'s reply extras over an injected fake session: sources (numbered markers, the Sources list,
// hostile references, favicons, a document page shown in a tied <doc-ocr-viewer>), copy (a reply, a code
// block, no clipboard API, a refused copy), thumbs with a comment kept in the history store, and axe.
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import { defineAgentChat } from '../../src/elements/agent-chat/define.js';
import { defineDocOcrViewer } from '../../src/elements/doc-ocr-viewer/define.js';
import type { DocOcrViewer } from '../../src/elements/doc-ocr-viewer/doc-ocr-viewer.js';
import type { CachedEntry } from '../../src/client/contracts.js';
import type { OcrResponse, OutputContentChunk } from '../../src/client/types.js';
import { openSharedStore } from '../../src/elements/internal/shared-client.js';
import { enforceAllowlist, renderMarkdownFragment } from '../../src/elements/internal/markdown.js';
import { FakeSession, reply, userMessage } from './helpers/fake-session.js';
import { axeViolations } from './helpers/axe.js';

defineAgentChat();
defineDocOcrViewer();

const ref = (fields: Record<string, unknown>): OutputContentChunk => ({ type: 'tool_reference', tool: 'web_search', ...fields }) as OutputContentChunk;

function replyWith(id: string, content: OutputContentChunk[]): CachedEntry {
  return reply(id, '', { content } as Partial<CachedEntry>);
}

async function chatWith(entries: CachedEntry[], attrs: { hosts?: string; viewer?: string; conversationId?: string } = {}): Promise<{ el: AgentChat; session: FakeSession; root: ShadowRoot }> {
  const session = new FakeSession();
  session.set({ conversationId: attrs.conversationId ?? `conv_${Math.random().toString(36).slice(2)}`, entries });
  const el = await fixture<AgentChat>(html`<agent-chat .session=${session} allow-image-hosts=${attrs.hosts ?? ''} document-viewer=${attrs.viewer ?? ''}></agent-chat>`);
  // The extras load with the first reply shown.
  await waitUntil(() => el.shadowRoot!.querySelector('[part="copy-button"]'), 'the reply actions load', { timeout: 5000 });
  await el.updateComplete;
  return { el, session, root: el.shadowRoot! };
}

/** navigator.clipboard.writeText replaced for the test: what was written (or a refusal). */
function stubClipboard(behaviour: 'write' | 'refuse' | 'missing') {
  const written: string[] = [];
  const original = Object.getOwnPropertyDescriptor(Navigator.prototype, 'clipboard');
  const clipboard = behaviour === 'missing' ? undefined : {
    writeText: async (text: string) => {
      if (behaviour === 'refuse') throw new DOMException('refused', 'NotAllowedError');
      written.push(text);
    },
  };
  Object.defineProperty(navigator, 'clipboard', { configurable: true, get: () => clipboard });
  return { written, restore: () => { delete (navigator as unknown as Record<string, unknown>).clipboard; if (original) Object.defineProperty(Navigator.prototype, 'clipboard', original); } };
}

describe('<agent-chat> sources', () => {
  it('shows numbered markers where the references stand and a collapsed Sources list with title, host and description', async () => {
    const { root } = await chatWith([userMessage('u1', 'Returns?'), replyWith('msg_1', [
      { type: 'text', text: 'Returns are accepted within 30 days. ' },
      ref({ title: 'Returns policy', url: 'https://shop.example/returns', description: 'Return any lamp within 30 days.' }),
      { type: 'text', text: 'Refunds take five days.' },
      ref({ title: 'Refunds', url: 'https://help.example/refunds' }),
      ref({ title: 'Returns policy again', url: 'https://shop.example/returns' }),
    ])]);
    const markers = [...root.querySelectorAll('.bubble .parley-source-marker')].map((m) => m.textContent);
    expect(markers).to.deep.equal(['[1]', '[2]', '[1]']);
    const bubble = root.querySelector('.assistant .bubble')!.textContent!;
    expect(bubble).to.include('30 days.[1]');
    const sources = root.querySelector<HTMLDetailsElement>('[part="sources"]')!;
    expect(sources.open).to.equal(false);
    expect(sources.querySelector('summary')!.textContent).to.equal('Sources (2)');
    const items = [...sources.querySelectorAll('[part="source"]')];
    expect(items).to.have.length(2);
    const link = items[0]!.querySelector('a')!;
    expect(link.textContent).to.equal('Returns policy');
    expect(link.href).to.equal('https://shop.example/returns');
    expect(link.target).to.equal('_blank');
    expect(link.rel).to.equal('noopener noreferrer nofollow');
    expect(items[0]!.querySelector('.source-host')!.textContent).to.equal('shop.example');
    expect(items[0]!.querySelector('.source-description')!.textContent).to.equal('Return any lamp within 30 days.');
  });

  it('keeps hostile references inert: markup as text, no javascript: or data: links, capped descriptions, no bidi overrides', async () => {
    const huge = 'lorem ipsum '.repeat(5000);
    const { root } = await chatWith([replyWith('msg_h', [
      { type: 'text', text: 'See these.' },
      ref({ title: '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>', url: 'javascript:window.pwned=3', description: huge }),
      ref({ title: 'Data', url: 'data:text/html,<script>window.pwned=4</script>' }),
      ref({ title: 'invoice\u202Efdp.exe', url: 'https://files.example/x', description: '\u2067evil\u2069 text' }),
      ref({ title: 'https://bank.example', url: 'https://evil.example/login' }),
    ])]);
    const items = [...root.querySelectorAll('[part="source"]')];
    expect(items).to.have.length(4);
    expect(items[0]!.querySelector('a')).to.equal(null);
    expect(items[0]!.querySelector('img, script')).to.equal(null);
    expect(items[0]!.textContent).to.include('<img src=x');
    expect(items[0]!.querySelector('.source-description')!.textContent!.length).to.be.at.most(300);
    expect(items[1]!.querySelector('a')).to.equal(null);
    expect(items[2]!.textContent).not.to.match(/[\u202A-\u202E\u2066-\u2069]/);
    expect(items[2]!.querySelector('a')!.textContent).to.equal('invoice fdp.exe');
    expect((window as unknown as { pwned?: number }).pwned).to.equal(undefined);

    // A title showing one host while the link opens another asks first, like a reply's own links.
    const spoof = items[3]!.querySelector('a')!;
    spoof.click();
    const el = root.host as AgentChat;
    await el.updateComplete;
    expect(root.querySelector<HTMLDialogElement>('dialog.link-dialog')!.open).to.equal(true);
    expect(root.querySelector('.real-host')!.textContent).to.equal('evil.example');
  });

  it('loads a favicon only from an allowed image host', async () => {
    const chunks: OutputContentChunk[] = [
      { type: 'text', text: 'Two.' },
      ref({ title: 'Allowed', url: 'https://shop.example/a', favicon: 'https://img.example/a.png' }),
      ref({ title: 'Other host', url: 'https://shop.example/b', favicon: 'https://tracker.example/b.png' }),
      ref({ title: 'Not http', url: 'https://shop.example/c', favicon: 'data:image/png;base64,AAAA' }),
    ];
    const { root } = await chatWith([replyWith('msg_f', chunks)], { hosts: 'img.example' });
    const icons = [...root.querySelectorAll<HTMLImageElement>('[part="source"] img')];
    expect(icons.map((i) => i.getAttribute('src'))).to.deep.equal(['https://img.example/a.png']);
    expect(icons[0]!.referrerPolicy).to.equal('no-referrer');
    expect(icons[0]!.alt).to.equal('');
  });

  it('names a document\'s page, and shows it with the passage highlighted in the tied <doc-ocr-viewer>', async () => {
    const viewer = await fixture<DocOcrViewer>(html`<doc-ocr-viewer id="doc-viewer"></doc-ocr-viewer>`);
    const result: OcrResponse = {
      model: 'parley-ocr', document_annotation: null, usage_info: { pages_processed: 2, doc_size_bytes: null },
      pages: [
        { index: 0, markdown: '# Invoice 1042\n\nLumen Lamps, 3 Light Street.', images: [], dimensions: null },
        { index: 1, markdown: 'Reading lamp 39.00 EUR\n\nTotal: 42.00 EUR (VAT included)', images: [], dimensions: null },
      ],
    } as OcrResponse;
    viewer.result = result;
    await viewer.updateComplete;
    const { root } = await chatWith([replyWith('msg_d', [
      { type: 'text', text: 'The total is 42.00 EUR.' },
      ref({ tool: 'document_library', title: 'invoice-1042.pdf', url: null, description: 'Total: 42.00 EUR (VAT included)', page: 2 }),
    ])], { viewer: 'doc-viewer' });
    const item = root.querySelector('[part="source"]')!;
    expect(item.querySelector('a')).to.equal(null);
    expect(item.querySelector('.source-title')!.textContent).to.equal('invoice-1042.pdf');
    expect(item.querySelector('.source-page')!.textContent).to.equal('page 2');
    const button = item.querySelector<HTMLButtonElement>('[part="source-page-button"]')!;
    expect(button.textContent).to.equal('Show page 2 in the document');
    button.click();
    await waitUntil(() => viewer.page === 1 && viewer.shadowRoot!.querySelector('[part~="current"]'), 'page 2 with the passage highlighted', { timeout: 5000 });
    expect(viewer.shadowRoot!.querySelector('[part~="current"]')!.textContent!.toLowerCase()).to.include('total: 42.00 eur');
    expect(await viewer.showPassage(1, 'not in the document at all')).to.equal(false);
    expect(viewer.page).to.equal(0);
  });
});

describe('the markdown renderer\'s markers and copy buttons', () => {
  it('renders source markers in text only, and a code block\'s copy button only when asked for, with no text of its own', () => {
    const text = 'Lamp\uE0001\uE001 and `co\uE0002\uE001de`\n\n```\nx\uE0003\uE001 = 1\n```\n\nstray \uE000 mark';
    const div = document.createElement('div');
    div.append(renderMarkdownFragment(text, { copyCode: 'Copy code' }));
    expect([...div.querySelectorAll('sup.parley-source-marker')].map((s) => s.textContent)).to.deep.equal(['[1]']);
    expect(div.querySelector('p code')!.textContent).to.equal('code');
    expect(div.querySelector('pre code')!.textContent).to.equal('x = 1\n');
    expect(div.textContent).not.to.match(/[\uE000\uE001]/);
    const button = div.querySelector('pre > button.parley-copy-code')!;
    expect(button.getAttribute('aria-label')).to.equal('Copy code');
    expect(button.textContent).to.equal('');
    const plain = document.createElement('div');
    plain.append(renderMarkdownFragment('```\nx\n```'));
    expect(plain.querySelector('button')).to.equal(null);
  });

  it('the allowlist check keeps only the renderer\'s own empty copy button, and only when copy buttons are asked for', () => {
    const make = (inner: string) => {
      const pre = document.createElement('pre');
      const button = document.createElement('button');
      button.className = 'parley-copy-code';
      button.setAttribute('onclick', 'window.pwned=1');
      button.textContent = inner;
      pre.append(button);
      const root = document.createElement('div');
      root.append(pre);
      return root;
    };
    const kept = make('');
    enforceAllowlist(kept, { copyCode: 'Copy code' });
    expect(kept.querySelector('button')!.getAttribute('onclick')).to.equal(null);
    const withText = make('Click me');
    enforceAllowlist(withText, { copyCode: 'Copy code' });
    expect(withText.querySelector('button')).to.equal(null);
    const notAsked = make('');
    enforceAllowlist(notAsked, {});
    expect(notAsked.querySelector('button')).to.equal(null);
  });
});

describe('<agent-chat> copy', () => {
  it('copies a reply as markdown with its sources, and a code block\'s code, and says Copied', async () => {
    const clipboard = stubClipboard('write');
    try {
      const { el, root } = await chatWith([replyWith('msg_c', [
        { type: 'text', text: 'Use **this**:\n\n```js\nconst a = 1;\n```\n' },
        ref({ title: 'Docs', url: 'https://docs.example/a' }),
      ])]);
      root.querySelector<HTMLButtonElement>('[part="copy-button"]')!.click();
      await waitUntil(() => clipboard.written.length === 1);
      expect(clipboard.written[0]).to.equal('Use **this**:\n\n```js\nconst a = 1;\n```\n\n\nSources (1)\n\n1. [Docs](<https://docs.example/a>)');
      await el.updateComplete;
      expect(root.querySelector('[part="copy-button"]')!.textContent).to.equal('Copied');
      expect(root.querySelector('[role="status"][aria-live="polite"]')!.textContent).to.include('Copied');

      const codeButton = root.querySelector<HTMLButtonElement>('.bubble pre button.parley-copy-code')!;
      expect(codeButton.getAttribute('aria-label')).to.equal('Copy code');
      expect(codeButton.textContent).to.equal('');
      codeButton.click();
      await waitUntil(() => clipboard.written.length === 2);
      expect(clipboard.written[1]).to.equal('const a = 1;');
    } finally {
      clipboard.restore();
    }
  });

  it('falls back to the copy command without a clipboard API, and says plainly when nothing could copy', async () => {
    const clipboard = stubClipboard('missing');
    const execCommand = document.execCommand;
    const copied: string[] = [];
    let works = true;
    document.execCommand = ((command: string) => {
      const box = [...document.querySelectorAll('agent-chat')].map((c) => c.shadowRoot!.querySelector('textarea[readonly]')).find(Boolean) as HTMLTextAreaElement | undefined;
      if (command === 'copy' && works && box) copied.push(box.value.slice(box.selectionStart, box.selectionEnd));
      return works;
    }) as typeof document.execCommand;
    try {
      const { el, root } = await chatWith([replyWith('msg_e', [{ type: 'text', text: 'Plain reply.' }])]);
      root.querySelector<HTMLButtonElement>('[part="copy-button"]')!.click();
      await waitUntil(() => copied.length === 1);
      expect(copied[0]).to.equal('Plain reply.');
      works = false;
      root.querySelector<HTMLButtonElement>('[part="copy-button"]')!.click();
      await waitUntil(() => root.querySelector('[role="status"][aria-live="polite"]')!.textContent!.includes('Could not copy'));
      await el.updateComplete;
      expect(root.querySelector('[part="copy-button"]')!.textContent).to.equal('Copy');
      expect(root.querySelector('textarea[readonly]')).to.equal(null);
    } finally {
      document.execCommand = execCommand;
      clipboard.restore();
    }
  });
});

describe('<agent-chat> feedback', () => {
  it('thumbs are labelled toggles; a thumbs-down takes a comment, fires parley-feedback and is kept across reloads', async () => {
    const conversationId = `conv_fb_${Date.now()}`;
    const entries = [userMessage('u1', 'Hi'), replyWith('msg_r', [{ type: 'text', text: 'Hello there.' }])];
    const { el, root } = await chatWith(entries, { conversationId });
    const events: Array<Record<string, unknown>> = [];
    el.addEventListener('parley-feedback', (e) => events.push({ ...e.detail }));
    const up = root.querySelector<HTMLButtonElement>('[part~="feedback-up-button"]')!;
    const down = root.querySelector<HTMLButtonElement>('[part~="feedback-down-button"]')!;
    expect(up.getAttribute('aria-label')).to.equal('Good reply');
    expect(down.getAttribute('aria-label')).to.equal('Bad reply');
    expect(up.getAttribute('aria-pressed')).to.equal('false');

    up.click();
    await el.updateComplete;
    expect(up.getAttribute('aria-pressed')).to.equal('true');
    expect(events).to.deep.equal([{ conversationId, messageId: 'msg_r', rating: 'up' }]);

    down.click();
    await el.updateComplete;
    await el.updateComplete;
    expect(down.getAttribute('aria-pressed')).to.equal('true');
    expect(up.getAttribute('aria-pressed')).to.equal('false');
    const comment = root.querySelector<HTMLTextAreaElement>('[part="feedback-comment"]')!;
    expect(root.activeElement).to.equal(comment);
    expect(await axeViolations(el)).to.deep.equal([]);
    comment.value = 'Too short.';
    root.querySelector<HTMLButtonElement>('[part~="feedback-send-button"]')!.click();
    await el.updateComplete;
    expect(root.querySelector('[part="feedback-form"]')).to.equal(null);
    expect(events.at(-1)).to.deep.equal({ conversationId, messageId: 'msg_r', rating: 'down', comment: 'Too short.' });
    expect(root.activeElement).to.equal(down);

    const store = await openSharedStore();
    await waitUntil(async () => (await store!.getFeedback!(conversationId)).msg_r?.comment === 'Too short.', 'kept in the store');

    // Another element on the same conversation (a reload) shows the rating.
    const again = await chatWith(entries, { conversationId });
    await waitUntil(() => again.root.querySelector('[part~="feedback-down-button"]')!.getAttribute('aria-pressed') === 'true', 'the kept rating');

    // Pressed again: taken back.
    down.click();
    await el.updateComplete;
    expect(down.getAttribute('aria-pressed')).to.equal('false');
    expect(events.at(-1)).to.deep.equal({ conversationId, messageId: 'msg_r', rating: null });
    await waitUntil(async () => !(await store!.getFeedback!(conversationId)).msg_r, 'forgotten in the store');
  });

  it('axe finds nothing with the sources open and code blocks with copy buttons', async () => {
    const { el, root } = await chatWith([userMessage('u1', 'Hi'), replyWith('msg_a', [
      { type: 'text', text: 'Code:\n\n```sh\nnpm start\n```\n\nDone.' },
      ref({ title: 'Guide', url: 'https://docs.example/guide', description: 'How to start.' }),
      ref({ tool: 'document_library', title: 'manual.pdf', description: 'Page text', page: 3 }),
    ])]);
    root.querySelector<HTMLDetailsElement>('[part="sources"]')!.open = true;
    await el.updateComplete;
    expect(await axeViolations(el)).to.deep.equal([]);
  });
});
