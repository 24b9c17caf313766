// Text boxes of the elements: the empty message box follows the element's direction and is dir=auto once it
// holds text; where `field-sizing: content` is missing (WebKit) the message box grows with its
// text up to its CSS max-height. Chromium has field-sizing, so the fallback is forced on through its
// documented seam (textFieldSizing.fallback) and the CSS property is switched off for the box.
import { expect, fixture, html, nextFrame } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import '../../src/elements/agent-chat/define.js';
import '../../src/elements/doc-ocr-viewer/define.js';
import { textFieldSizing } from '../../src/elements/internal/text-field.js';
import { FakeSession } from './helpers/fake-session.js';
import { pressWith } from './helpers/keys.js';

async function settle(el: AgentChat): Promise<void> {
  await el.updateComplete;
  await nextFrame();
  await el.updateComplete;
}

async function chat(dir?: string): Promise<{ el: AgentChat; input: HTMLTextAreaElement }> {
  const wrapper = await fixture<HTMLDivElement>(dir
    ? html`<div dir=${dir} lang="ar"><agent-chat .session=${new FakeSession()} style="height: 40rem"></agent-chat></div>`
    : html`<div><agent-chat .session=${new FakeSession()} style="height: 40rem"></agent-chat></div>`);
  const el = wrapper.querySelector('agent-chat')!;
  await settle(el);
  return { el, input: el.shadowRoot!.querySelector<HTMLTextAreaElement>('[part="input"]')! };
}

async function type(el: AgentChat, input: HTMLTextAreaElement, text: string): Promise<void> {
  input.focus();
  await sendKeys({ type: text });
  await settle(el);
}

async function clear(el: AgentChat, input: HTMLTextAreaElement): Promise<void> {
  input.select();
  await sendKeys({ press: 'Backspace' });
  await settle(el);
}

async function newline(): Promise<void> {
  await pressWith('Shift', 'Enter');
}

describe('the message box direction', () => {
  it('is the element\'s (rtl) while empty, the text\'s once typed, the element\'s again when emptied', async () => {
    const { el, input } = await chat('rtl');
    expect(input.hasAttribute('dir')).to.equal(false);
    expect(getComputedStyle(input).direction).to.equal('rtl');
    await type(el, input, 'hello');
    expect(input.getAttribute('dir')).to.equal('auto');
    expect(getComputedStyle(input).direction).to.equal('ltr');
    await clear(el, input);
    expect(input.value).to.equal('');
    expect(getComputedStyle(input).direction).to.equal('rtl');
    await type(el, input, 'مرحبا');
    expect(getComputedStyle(input).direction).to.equal('rtl');
  });

  it('is ltr while empty on a left-to-right page, and follows the draft (a sent message empties it)', async () => {
    const { el, input } = await chat();
    expect(getComputedStyle(input).direction).to.equal('ltr');
    await type(el, input, 'مرحبا');
    expect(input.getAttribute('dir')).to.equal('auto');
    expect(getComputedStyle(input).direction).to.equal('rtl');
    await sendKeys({ press: 'Enter' });
    await settle(el);
    expect(input.value).to.equal('');
    expect(input.hasAttribute('dir')).to.equal(false);
    expect(getComputedStyle(input).direction).to.equal('ltr');
  });

  it('holds for the search boxes: agent-chat\'s and doc-ocr-viewer\'s', async () => {
    const wrapper = await fixture<HTMLDivElement>(html`<div dir="rtl"><doc-ocr-viewer></doc-ocr-viewer></div>`);
    const viewer = wrapper.querySelector('doc-ocr-viewer')!;
    viewer.result = { model: 'm', document_annotation: null, usage_info: { pages_processed: 1, doc_size_bytes: null },
      pages: [{ index: 0, images: [], dimensions: null, markdown: 'Hello world' }] };
    await viewer.updateComplete;
    await nextFrame();
    const search = viewer.shadowRoot!.querySelector<HTMLInputElement>('[part="search-input"]');
    expect(search).to.exist;
    expect(getComputedStyle(search!).direction).to.equal('rtl');
    search!.focus();
    await sendKeys({ type: 'world' });
    expect(getComputedStyle(search!).direction).to.equal('ltr');
  });
});

describe('the message box height without field-sizing', () => {
  const original = textFieldSizing.fallback;
  afterEach(() => { textFieldSizing.fallback = original; });

  it('grows with each line, up to its max-height, and shrinks when emptied', async () => {
    textFieldSizing.fallback = true;
    const { el, input } = await chat();
    input.style.setProperty('field-sizing', 'fixed'); // as in an engine without the property
    await settle(el);
    const oneLine = input.getBoundingClientRect().height;
    await type(el, input, 'one');
    expect(input.getBoundingClientRect().height).to.equal(oneLine);
    await newline();
    await sendKeys({ type: 'two' });
    await newline();
    await sendKeys({ type: 'three' });
    await newline();
    await sendKeys({ type: 'four' });
    await settle(el);
    const fourLines = input.getBoundingClientRect().height;
    expect(fourLines).to.be.above(oneLine * 2);
    expect(input.scrollHeight).to.be.at.most(input.clientHeight + 1); // all four lines are in view
    for (let i = 0; i < 20; i++) await newline();
    await settle(el);
    const max = parseFloat(getComputedStyle(input).maxHeight);
    expect(input.getBoundingClientRect().height).to.equal(max);
    await clear(el, input);
    expect(input.getBoundingClientRect().height).to.equal(oneLine);
  });

  it('does not run where field-sizing is supported (the CSS sizes the box)', async () => {
    if (!CSS.supports('field-sizing', 'content')) return;
    textFieldSizing.fallback = false;
    const { el, input } = await chat();
    await type(el, input, 'one');
    await newline();
    await sendKeys({ type: 'two' });
    await settle(el);
    expect(input.style.getPropertyValue('height')).to.equal('');
    expect(input.scrollHeight).to.be.at.most(input.clientHeight + 1);
  });
});
