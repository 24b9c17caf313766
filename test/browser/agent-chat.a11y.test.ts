// <agent-chat> for everyone (issue 15): the launcher as a modal dialog on phones and a panel on wide
// screens, keyboard-scrollable code, announcements, themes (light, dark, auto, forced colours), right to
// left, and radii from --parley-radius. A FakeSession drives the states; axe checks each one.
import { expect, fixture, html, nextFrame, waitUntil } from '@open-wc/testing';
import { emulateMedia, executeServerCommand, sendKeys, setViewport } from '@web/test-runner-commands';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import '../../src/elements/agent-chat/define.js';
import { FakeSession, reply, userMessage } from './helpers/fake-session.js';
import { axeViolations } from './helpers/axe.js';

const LONG_CODE = '```js\n' + `const veryLongName = [${Array.from({ length: 60 }, (_, i) => `'item-${i}'`).join(', ')}];\n` + '```';

function view(el: AgentChat) {
  const root = el.shadowRoot!;
  return {
    root,
    q: <T extends HTMLElement = HTMLElement>(s: string) => root.querySelector<T>(s),
    all: (s: string) => [...root.querySelectorAll<HTMLElement>(s)],
  };
}

async function settle(el: AgentChat): Promise<void> {
  await el.updateComplete;
  await nextFrame();
  await el.updateComplete;
}

/** A page with a link before the chat and one after it, and a launcher chat with a conversation in it. */
async function launcherPage(heading = 'Lumen Outdoor Outfitters customer help') {
  const session = new FakeSession();
  const page = await fixture<HTMLDivElement>(html`<div>
    <a href="#before" id="before">Page link before</a>
    <agent-chat .session=${session} mode="launcher" heading=${heading}></agent-chat>
    <a href="#after" id="after">Page link after</a>
  </div>`);
  const el = page.querySelector('agent-chat')!;
  session.set({ conversationId: 'c1', entries: [userMessage('u1', 'Show me code'), reply('r1', `Here:\n\n${LONG_CODE}`)] });
  await settle(el);
  return { page, el, session, v: view(el) };
}

/** Where focus is: inside the chat's shadow root (the element), or an element of the page. */
function focused(): Element | null {
  return document.activeElement;
}

describe('<agent-chat> on phones and wide screens', () => {
  afterEach(() => setViewport({ width: 800, height: 600 }));

  it('at 375 px the open launcher is a modal dialog: focus stays inside, the page is inert, Escape returns focus', async () => {
    await setViewport({ width: 375, height: 700 });
    const { page, el, v } = await launcherPage();
    const launcher = v.q<HTMLButtonElement>('[part~="launcher"]')!;
    launcher.focus();
    await sendKeys({ press: 'Enter' });
    await settle(el);
    const panel = v.q<HTMLDialogElement>('[part~="panel"]')!;
    expect(panel.open).to.equal(true);
    expect(panel.matches(':modal')).to.equal(true);
    expect(panel.getAttribute('aria-modal')).to.equal('true');
    expect(v.root.activeElement).to.equal(v.q('[part~="input"]'));
    // The panel covers the screen.
    const box = panel.getBoundingClientRect();
    expect(Math.round(box.width)).to.equal(375);
    expect(await axeViolations(el)).to.deep.equal([]);

    // Tab and Shift+Tab go round the panel's controls (and the browser's own UI, which a headless browser
    // shows as the body) and never reach the page's links.
    const seen = new Set<Element>();
    for (let i = 0; i < 14; i++) {
      await sendKeys({ press: 'Tab' });
      const at = focused();
      expect([el, document.body], `Tab ${i + 1}`).to.include(at);
      if (at === el) {
        seen.add(v.root.activeElement!);
        expect(panel.contains(v.root.activeElement)).to.equal(true);
      }
    }
    await sendKeys({ down: 'Shift' });
    for (let i = 0; i < 6; i++) {
      await sendKeys({ press: 'Tab' });
      expect([el, document.body], `Shift+Tab ${i + 1}`).to.include(focused());
    }
    await sendKeys({ up: 'Shift' });
    // The code block is one of the stops, and the page behind is inert.
    expect([...seen].some((node) => node.tagName === 'PRE')).to.equal(true);
    expect(page.querySelector<HTMLAnchorElement>('#before')!.matches(':focus')).to.equal(false);
    expect(page.querySelector<HTMLAnchorElement>('#after')!.matches(':focus')).to.equal(false);

    v.q<HTMLElement>('[part~="input"]')!.focus();
    await sendKeys({ press: 'Escape' });
    await settle(el);
    expect(el.open).to.equal(false);
    expect(panel.open).to.equal(false);
    expect(v.root.activeElement).to.equal(launcher);
  });

  it('at 1280 px the open launcher is a non-modal panel beside the page', async () => {
    await setViewport({ width: 1280, height: 800 });
    const { page, el, v } = await launcherPage();
    el.show();
    await settle(el);
    const panel = v.q<HTMLDialogElement>('[part~="panel"]')!;
    expect(panel.open).to.equal(true);
    expect(panel.matches(':modal')).to.equal(false);
    expect(panel.hasAttribute('aria-modal')).to.equal(false);
    expect(panel.getBoundingClientRect().width).to.be.below(500);
    expect(await axeViolations(el)).to.deep.equal([]);
    // The page stays usable.
    page.querySelector<HTMLAnchorElement>('#after')!.focus();
    expect(focused()!.id).to.equal('after');
  });

  it('a screen that shrinks while the panel is open makes it modal, and it stays open', async () => {
    await setViewport({ width: 1280, height: 800 });
    const { el, v } = await launcherPage();
    el.show();
    await settle(el);
    const panel = v.q<HTMLDialogElement>('[part~="panel"]')!;
    await setViewport({ width: 375, height: 700 });
    await waitUntil(() => panel.matches(':modal'), 'the panel became modal');
    await settle(el);
    expect(el.open).to.equal(true);
    expect(panel.getAttribute('aria-modal')).to.equal('true');
  });

  it('a long title wraps (two lines at most) and carries the whole name', async () => {
    await setViewport({ width: 1280, height: 800 });
    const name = 'Lumen Outdoor Outfitters customer help';
    const { el, v } = await launcherPage(name);
    el.show();
    await settle(el);
    const title = v.q('[part~="title"]')!;
    expect(title.getAttribute('title')).to.equal(name);
    // Not cut to one line: at 1280 px the name fits in two.
    expect(title.scrollHeight).to.be.at.most(title.clientHeight + 1);
    expect(title.textContent).to.equal(name);
  });
});

describe('<agent-chat> keyboard and screen readers', () => {
  it('a code block that overflows scrolls with the keyboard, and its focus ring is not clipped', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session} style="width: 320px"></agent-chat>`);
    session.set({ conversationId: 'c1', entries: [userMessage('u1', 'Code?'), reply('r1', LONG_CODE)] });
    await settle(el);
    const pre = view(el).q<HTMLPreElement>('.markdown pre')!;
    expect(pre.scrollWidth).to.be.above(pre.clientWidth);
    expect(pre.getAttribute('tabindex')).to.equal('0');
    pre.focus();
    await sendKeys({ press: 'ArrowRight' });
    await sendKeys({ press: 'ArrowRight' });
    await waitUntil(() => pre.scrollLeft > 0, 'the code block scrolled');
    // Rings of scrolling regions are drawn inside them.
    expect(getComputedStyle(pre).outlineOffset).to.equal('-2px');
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('announces sending, writing and a failure once each, politely; the upstream detail goes to the console and the event only', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session}></agent-chat>`);
    const v = view(el);
    const live = v.q('[role="status"][aria-live="polite"]')!;
    const heard: string[] = [];
    new MutationObserver(() => heard.push(live.textContent!.replace(/\u200b/g, '').trim())).observe(live, { childList: true, characterData: true, subtree: true });

    session.set({ conversationId: 'c1', entries: [userMessage('u1', 'Hello')], status: 'submitted' });
    await settle(el);
    session.set({ entries: [userMessage('u1', 'Hello'), reply('r1', 'Hi', { completed_at: null } as never)], status: 'streaming', streamingEntryId: 'r1' });
    await settle(el);
    session.set({ entries: [userMessage('u1', 'Hello'), reply('r1', 'Hi there')], status: 'streaming', streamingEntryId: 'r1' });
    await settle(el);

    const warnings: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args);
    let detail: unknown;
    el.addEventListener('parley-error', (e) => { detail = (e as CustomEvent).detail; });
    const error = { status: 500, type: 'server_error', code: null, message: 'upstream exploded: SECRET-DETAIL', retryAfter: null };
    try {
      session.set({ status: 'error', streamingEntryId: null, error });
      await settle(el);
    } finally {
      console.warn = warn;
    }
    await waitUntil(() => heard.length >= 3, 'three announcements');
    expect(heard.filter(Boolean)).to.deep.equal([
      'Message sent. Waiting for the reply…',
      'The reply is being written…',
      'The chat service had a problem and could not finish the reply.',
    ]);
    const box = v.q('[part~="error"]')!;
    expect(box.getAttribute('role')).to.equal(null); // polite, through the live region, not an assertive alert
    expect(box.textContent).to.not.contain('SECRET-DETAIL');
    expect(JSON.stringify(warnings)).to.contain('SECRET-DETAIL');
    expect((detail as { error: { message: string } }).error.message).to.contain('SECRET-DETAIL');
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('keeps the last messages in view when the error box appears', async () => {
    const session = new FakeSession();
    const el = await fixture<AgentChat>(html`<agent-chat .session=${session} style="--parley-height: 18rem"></agent-chat>`);
    const entries = Array.from({ length: 12 }, (_, i) => (i % 2 ? reply(`r${i}`, `Reply ${i}`) : userMessage(`u${i}`, `Question ${i}`)));
    session.set({ conversationId: 'c1', entries });
    await settle(el);
    const transcript = view(el).q('.transcript')!;
    await waitUntil(() => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 2, 'at the bottom');
    session.set({ entries: [...entries, userMessage('u12', 'The last question')], status: 'error', error: { status: 503, type: 'server_error', code: null, message: 'x', retryAfter: null } });
    await settle(el);
    await waitUntil(() => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 2, 'still at the bottom with the error box shown');
    const last = view(el).all('.message.user').at(-1)!;
    const lastBox = last.getBoundingClientRect();
    const viewBox = transcript.getBoundingClientRect();
    expect(lastBox.bottom).to.be.at.most(viewBox.bottom + 1);
  });

  it('warns once in the console when a model chat has tools but no tool definitions', async () => {
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
    try {
      const el = await fixture<AgentChat>(html`<agent-chat .session=${new FakeSession()} model="m" .tools=${{ lookup: () => 'x' }}></agent-chat>`);
      el.tools = { lookup: () => 'y' };
      await el.updateComplete;
      await fixture<AgentChat>(html`<agent-chat .session=${new FakeSession()} model="m" .tools=${{ lookup: () => 'x' }} .toolDefinitions=${[{ type: 'function', function: { name: 'lookup', parameters: {} } }]}></agent-chat>`);
    } finally {
      console.warn = warn;
    }
    expect(warnings.filter((w) => w.includes('toolDefinitions'))).to.have.length(1);
  });
});

describe('<agent-chat> themes, right to left, radii', () => {
  afterEach(async () => {
    await emulateMedia({ colorScheme: 'light' });
    await executeServerCommand('parley-forced-colors', { active: false });
  });

  const background = (el: AgentChat) => getComputedStyle(view(el).q('[part~="panel"]')!).backgroundColor;
  const isDark = (rgb: string) => {
    const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 80;
  };

  async function chatWithContent(template = html`<agent-chat .session=${new FakeSession()}></agent-chat>`) {
    const el = await fixture<AgentChat>(template);
    const session = (el as unknown as { session: FakeSession }).session;
    session.set({
      conversationId: 'c1',
      entries: [userMessage('u1', 'مرحبا'), reply('r1', `> A quote\n\n- one\n- two\n\n${LONG_CODE}\n\n[A link](https://docs.test/)`)],
      status: 'error',
      error: { status: 429, type: 'rate_limit_error', code: null, message: 'slow down', retryAfter: 3 },
    });
    await settle(el);
    return el;
  }

  it('auto (the default) follows the system theme; light and dark fix it; every state passes axe in dark', async () => {
    const auto = await chatWithContent();
    expect(auto.theme).to.equal('auto');
    expect(isDark(background(auto))).to.equal(false);
    await emulateMedia({ colorScheme: 'dark' });
    await settle(auto);
    expect(isDark(background(auto))).to.equal(true);
    expect(await axeViolations(auto)).to.deep.equal([]);

    const light = await chatWithContent(html`<agent-chat theme="light" .session=${new FakeSession()}></agent-chat>`);
    expect(isDark(background(light))).to.equal(false);
    await emulateMedia({ colorScheme: 'light' });
    const dark = await chatWithContent(html`<agent-chat theme="dark" .session=${new FakeSession()}></agent-chat>`);
    expect(isDark(background(dark))).to.equal(true);
    expect(await axeViolations(dark)).to.deep.equal([]);
    // A site's own colours win in either theme.
    dark.style.setProperty('--parley-color-background', 'rgb(10, 20, 30)');
    expect(background(dark)).to.equal('rgb(10, 20, 30)');
  });

  it('forced colours use system colours and keep borders', async () => {
    await executeServerCommand('parley-forced-colors', { active: true });
    const el = await chatWithContent();
    expect(matchMedia('(forced-colors: active)').matches).to.equal(true);
    const send = view(el).q('[part~="composer"] textarea')!;
    expect(getComputedStyle(send).borderTopStyle).to.equal('solid');
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('right to left: code stays left to right, the quote bar and list padding move to the start side, text is dir=auto, the empty box follows the page', async () => {
    const wrapper = await fixture<HTMLDivElement>(html`<div dir="rtl" lang="ar"><agent-chat .session=${new FakeSession()}></agent-chat></div>`);
    const el = wrapper.querySelector('agent-chat')!;
    (el as unknown as { session: FakeSession }).session.set({
      conversationId: 'c1',
      entries: [userMessage('u1', 'مرحبا'), reply('r1', `> اقتباس\n\n- أول\n- ثاني\n\n\`\`\`js\nconst x;\n\`\`\``)],
    });
    await settle(el);
    const v = view(el);
    const pre = v.q('.markdown pre')!;
    expect(getComputedStyle(pre).direction).to.equal('ltr');
    const quote = getComputedStyle(v.q('.markdown blockquote')!);
    expect(quote.borderRightWidth).to.equal('3px');
    expect(quote.borderLeftWidth).to.equal('0px');
    const list = getComputedStyle(v.q('.markdown ul')!);
    expect(list.paddingLeft).to.equal('0px');
    expect(parseFloat(list.paddingRight)).to.be.above(0);
    for (const bubble of v.all('[part~="bubble"]')) expect(bubble.getAttribute('dir')).to.equal('auto');
    // The empty message box follows the page (no dir of its own); text-field.test.ts covers typing.
    expect(v.q('[part~="input"]')!.hasAttribute('dir')).to.equal(false);
    expect(getComputedStyle(v.q('[part~="input"]')!).direction).to.equal('rtl');
    expect(await axeViolations(el)).to.deep.equal([]);
  });

  it('--parley-radius shapes the panel, bubbles, buttons, fields and code blocks', async () => {
    const el = await chatWithContent(html`<agent-chat .session=${new FakeSession()} style="--parley-radius: 0px"></agent-chat>`);
    const v = view(el);
    for (const selector of ['[part~="panel"]', '[part~="bubble"]', '[part~="retry-button"]', '[part~="input"]', '.markdown pre']) {
      expect(getComputedStyle(v.q(selector)!).borderTopLeftRadius, selector).to.equal('0px');
    }
    el.style.setProperty('--parley-radius', '18px');
    expect(getComputedStyle(v.q('[part~="retry-button"]')!).borderTopLeftRadius).to.equal('12px');
  });
});
