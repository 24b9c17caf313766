// <agent-chat> attachments in Chromium: pick, drop and paste images and PDFs; chips with thumbnails that can be
// removed by keyboard; limits refused before anything is sent, in words, in the visitor's language; what is
// sent (content chunks with data: URLs); the transcript's sent attachments; axe on each state.
import { expect, fixture, html, nextFrame, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import '../../src/elements/agent-chat/define.js';
import type { CachedEntry } from '../../src/client/contracts.js';
import { FakeSession, reply } from './helpers/fake-session.js';
import { axeViolations } from './helpers/axe.js';

const MB = 1024 * 1024;
// A 1×1 PNG's bytes, and a PDF's first bytes.
const PNG_BYTES = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
const png = (name = 'receipt.png') => new File([PNG_BYTES], name, { type: 'image/png' });
const pdf = (name = 'invoice.pdf', size = 64) => {
  const bytes = new Uint8Array(size);
  bytes.set(new TextEncoder().encode('%PDF-1.4\n'));
  return new File([bytes], name, { type: 'application/pdf' });
};

async function chat(attributes: { lang?: string; maxAttachments?: number } = {}) {
  const session = new FakeSession();
  const el = await fixture<AgentChat>(html`<agent-chat .session=${session} lang=${attributes.lang ?? 'en'} max-attachments=${attributes.maxAttachments ?? 4}></agent-chat>`);
  await el.updateComplete;
  const root = el.shadowRoot!;
  const q = <T extends Element = HTMLElement>(s: string) => root.querySelector<T>(s);
  const all = (s: string) => [...root.querySelectorAll<HTMLElement>(s)];
  const live = () => q('[role="status"][aria-live="polite"]')!.textContent!.trim();
  const chips = () => all('[part~="attachment"]');
  return { el, session, root, q, all, live, chips };
}

type View = Awaited<ReturnType<typeof chat>>;

/** Offers `files` the way the file picker does. */
async function pick(v: View, files: File[]) {
  const input = v.q<HTMLInputElement>('.composer input[type="file"]')!;
  const dt = new DataTransfer();
  for (const f of files) dt.items.add(f);
  input.files = dt.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
  await settle(v);
}

async function settle(v: View) {
  // The tray's code is loaded with the first file: wait until it has rendered what it was given.
  for (let i = 0; i < 50; i++) {
    await v.el.updateComplete;
    await nextFrame();
    if (v.chips().length || v.q('[part="attachment-notice"]')) break;
  }
  await v.el.updateComplete;
}

describe('<agent-chat> attachments', () => {
  it('the attach button is labelled, opens the picker (images and PDFs, several files, no capture); max-attachments="0" removes it', async () => {
    const v = await chat();
    const button = v.q<HTMLButtonElement>('[part="attach-button"]')!;
    expect(button.getAttribute('aria-label')).to.equal('Attach images or PDFs');
    const input = v.q<HTMLInputElement>('.composer input[type="file"]')!;
    expect(input.accept).to.equal('image/png,image/jpeg,image/gif,image/webp,application/pdf');
    expect(input.multiple).to.equal(true);
    expect(input.hasAttribute('capture')).to.equal(false);
    let opened = 0;
    input.addEventListener('click', (e) => { opened++; e.preventDefault(); });
    button.click();
    expect(opened).to.equal(1);
    const off = await chat({ maxAttachments: 0 });
    expect(off.q('[part="attach-button"]')).to.equal(null);
  });

  it('a picked image and PDF show as chips (thumbnail, name, size, type), are announced, and enable Send alone', async () => {
    const v = await chat();
    expect(v.q<HTMLButtonElement>('[part="send-button"]')!.disabled).to.equal(true);
    await pick(v, [png(), pdf('invoice.pdf', 2048)]);
    const [image, doc] = v.chips();
    expect(image!.querySelector('img')!.src).to.match(/^blob:/);
    expect(image!.textContent).to.contain('receipt.png');
    expect(image!.textContent).to.contain('PNG');
    expect(doc!.textContent).to.contain('invoice.pdf');
    expect(doc!.textContent).to.contain('2 kB');
    expect(doc!.textContent).to.contain('PDF');
    expect(v.live()).to.contain('receipt.png attached');
    expect(v.q('[part="attachments"]')!.getAttribute('aria-label')).to.equal('Attached files');
    expect(v.q<HTMLButtonElement>('[part="send-button"]')!.disabled).to.equal(false);
    expect(await axeViolations(v.el)).to.deep.equal([]);
  });

  it('files dropped on the composer and pasted into the message box are attached', async () => {
    const v = await chat();
    const form = v.q('.composer')!;
    const dropped = new DataTransfer();
    dropped.items.add(png('dropped.png'));
    const over = new DragEvent('dragover', { dataTransfer: dropped, bubbles: true, cancelable: true });
    form.dispatchEvent(over);
    expect(over.defaultPrevented).to.equal(true);
    expect(form.classList.contains('dragging')).to.equal(true);
    const drop = new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true });
    form.dispatchEvent(drop);
    expect(drop.defaultPrevented).to.equal(true);
    expect(form.classList.contains('dragging')).to.equal(false);
    await settle(v);
    const pasted = new DataTransfer();
    pasted.items.add(pdf('pasted.pdf'));
    const paste = new ClipboardEvent('paste', { clipboardData: pasted, bubbles: true, cancelable: true });
    v.q('textarea')!.dispatchEvent(paste);
    expect(paste.defaultPrevented).to.equal(true);
    await waitUntil(() => v.chips().length === 2, 'the pasted file is attached');
    expect(v.chips().map((c) => c.querySelector('.name')!.textContent)).to.deep.equal(['dropped.png', 'pasted.pdf']);
    // Pasted text is left to the message box.
    const text = new DataTransfer();
    text.setData('text/plain', 'hello');
    const textPaste = new ClipboardEvent('paste', { clipboardData: text, bubbles: true, cancelable: true });
    v.q('textarea')!.dispatchEvent(textPaste);
    expect(textPaste.defaultPrevented).to.equal(false);
  });

  it('a chip is removed by keyboard: its thumbnail URL revoked, announced, focus on the next chip, then on the attach button', async () => {
    const v = await chat();
    const revoked: string[] = [];
    const revoke = URL.revokeObjectURL;
    URL.revokeObjectURL = (url: string) => { revoked.push(url); revoke.call(URL, url); };
    try {
      await pick(v, [png('one.png'), png('two.png')]);
      const thumb = v.chips()[0]!.querySelector('img')!.src;
      const remove = v.q<HTMLButtonElement>('[part~="remove-attachment-button"]')!;
      expect(remove.getAttribute('aria-label')).to.equal('Remove one.png');
      remove.focus();
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => v.chips().length === 1, 'one chip left');
      expect(revoked).to.deep.equal([thumb]);
      expect(v.live()).to.equal('one.png removed');
      await waitUntil(() => v.root.activeElement?.getAttribute('aria-label') === 'Remove two.png', 'focus on the next chip');
      await sendKeys({ press: ' ' });
      await waitUntil(() => v.chips().length === 0, 'no chip left');
      await waitUntil(() => v.root.activeElement?.getAttribute('part') === 'attach-button', 'focus on the attach button');
    } finally {
      URL.revokeObjectURL = revoke;
    }
  });

  it('a 31.5 MB file, a refused type and a fifth file are refused before anything is sent, with sentences naming the limits', async () => {
    const v = await chat();
    const big = new File([new Uint8Array(31.5 * MB)], 'scan.pdf', { type: 'application/pdf' });
    await pick(v, [big]);
    const notice = v.q('[part="attachment-notice"]')!;
    expect(notice.textContent).to.equal('scan.pdf is 31.5 MB; the limit is 10 MB.');
    expect(v.live()).to.equal('scan.pdf is 31.5 MB; the limit is 10 MB.');
    expect(v.chips()).to.have.length(0);
    await pick(v, [new File(['<script>alert(1)</script>'], 'page.html', { type: 'text/html' })]);
    expect(v.q('[part="attachment-notice"]')!.textContent).to.equal('page.html can’t be attached: accepted types are PNG, JPEG, GIF, WEBP, PDF.');
    await pick(v, [png('1.png'), png('2.png'), png('3.png'), png('4.png'), png('5.png')]);
    expect(v.chips()).to.have.length(4);
    expect(v.q('[part="attachment-notice"]')!.textContent).to.equal('5.png wasn’t attached: 4 files per message at most.');
    expect(v.session.calls.filter(([c]) => c === 'send')).to.have.length(0);
    expect(await axeViolations(v.el)).to.deep.equal([]);
  });

  it('in French, the refusal is French', async () => {
    const v = await chat({ lang: 'fr' });
    await waitUntil(() => v.q('[part="attach-button"]')!.getAttribute('aria-label') === 'Joindre des images ou des PDF', 'the French catalogue');
    await pick(v, [new File([new Uint8Array(31.5 * MB)], 'scan.pdf', { type: 'application/pdf' })]);
    expect(v.q('[part="attachment-notice"]')!.textContent).to.match(/^scan\.pdf fait 31,5\s?Mo\u00a0; la limite est de 10\s?Mo\.$/);
  });

  it('Send sends the text and the files as content chunks (data: URLs, the PDF named), then the chips are gone', async () => {
    const v = await chat();
    let sentDetail: unknown = null;
    v.el.addEventListener('parley-message-sent', (e) => { sentDetail = (e as CustomEvent).detail; });
    await pick(v, [png(), pdf('invoice.pdf')]);
    const box = v.q<HTMLTextAreaElement>('textarea')!;
    box.focus();
    await sendKeys({ type: 'What is the total?' });
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => v.session.calls.some(([c]) => c === 'send'), 'sent');
    const [, content] = v.session.calls.find(([c]) => c === 'send')!;
    expect(content).to.deep.equal([
      { type: 'text', text: 'What is the total?' },
      { type: 'image_url', image_url: `data:image/png;base64,${btoa(String.fromCharCode(...PNG_BYTES))}` },
      { type: 'document_url', document_url: `data:application/pdf;base64,${btoa(String.fromCharCode(...new Uint8Array(await pdf().arrayBuffer())))}`, document_name: 'invoice.pdf' },
    ]);
    expect(sentDetail).to.include({ text: 'What is the total?', attachments: 2 });
    await v.el.updateComplete;
    expect(v.chips()).to.have.length(0);
  });

  it('hostile names stay text: markup is not parsed, RTL overrides and control characters are gone, a 10 000-character name is cut', async () => {
    const v = await chat();
    await pick(v, [png('<img src=x onerror="window.__pwned=1">.png'), pdf('invoice\u202Egpj.exe\u0000.pdf'), png(`${'a'.repeat(10_000)}.png`)]);
    const names = v.chips().map((c) => c.querySelector('.name')!.textContent!);
    expect(names[0]).to.equal('<img src=x onerror="window.__pwned=1">.png');
    expect(names[1]).to.equal('invoicegpj.exe.pdf');
    expect([...names[2]!].length).to.equal(120);
    expect(v.chips()[0]!.querySelectorAll('img')).to.have.length(1); // the thumbnail only
    expect((window as { __pwned?: number }).__pwned).to.equal(undefined);
  });

  it('the transcript shows the files sent with a message: the page\'s image as a thumbnail, a document by name, a remote image not loaded', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session}></agent-chat>`);
    const dataImage = `data:image/png;base64,${btoa(String.fromCharCode(...PNG_BYTES))}`;
    const user: CachedEntry = {
      object: 'entry', type: 'message.input', id: 'u1', role: 'user', created_at: 't', completed_at: 't',
      content: [
        { type: 'text', text: 'Total?' },
        { type: 'image_url', image_url: dataImage },
        { type: 'image_url', image_url: 'https://tracker.example/pixel.png' },
        { type: 'document_url', document_url: 'data:application/pdf;base64,JVBERi0=', document_name: '\u202Eevil<b>.pdf' },
      ],
    };
    session.set({ conversationId: 'c1', entries: [user, reply('r1', 'The total is 42.00')] });
    await el.updateComplete;
    const sent = el.shadowRoot!.querySelector('[part="sent-attachments"]')!;
    const images = [...sent.querySelectorAll('img')];
    expect(images.map((i) => i.getAttribute('src'))).to.deep.equal([dataImage]);
    expect(images[0]!.alt).to.equal('Attached image');
    expect(sent.textContent).to.contain('Attached image'); // the remote one, as text
    expect(sent.querySelector('bdi')!.textContent).to.equal('evil<b>.pdf'); // no right-to-left override
    expect(sent.querySelector('b')).to.equal(null);
    expect(el.shadowRoot!.querySelector('[part~="message-user"] [part="bubble"]')!.textContent).to.equal('Total?');
    expect(await axeViolations(el)).to.deep.equal([]);
  });
});
