// <agent-chat> in Debian Chromium against deep-chat (a devDependency, the reference chat element) and a
// plain-text element defined in the bench page (a <div> per message, its textContent set per delta), all
// three in the same page and the same run (issue 15, item 5):
// - streaming: the same 5,000 deltas of a markdown reply fed to each, one delta per task (frames paint in
//   between, as over a network); a delta's main-thread time is the element's update plus the style and
//   layout it leaves to do (forced by reading the layout at once). Three runs each, interleaved; every
//   figure is the median of the three runs' figures.
// - history: 1,000 messages given at once (five opens, medians), timed to the first frame painted after (a task after that
//   frame's animation callbacks, so its style, layout and paint are in), then whether the first and the
//   last message are reached by scrolling and by the chat's search.
// - the bundles' min+gzip sizes (scripts/bundle-sizes.mjs: the chat's first load, its markdown and audio
//   chunks, all four elements).
// <agent-chat> is fed through its `session` property by a scripted session (the ChatSessionApi contract),
// deep-chat through its `connect.handler` stream signals, so only rendering is timed.
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import { createLocalChatEngine, tokenize } from '@parley-kit/platform';
import { BUDGETS, ELEMENTS, bundleSizes, graph, gzipBytes } from '../scripts/bundle-sizes.mjs';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist/browser');
const BUNDLE = join(DIST, 'agent-chat.js');
const DEEP_CHAT = join(createRequire(import.meta.url).resolve('deep-chat/package.json'), '../dist/deepChat.bundle.js');
// Three runs of 5,000 deltas each (the figures); fewer while working on the element:
// BENCH_ELEMENT_RUNS=1 BENCH_ELEMENT_DELTAS=500 npm run bench -- element
const RUNS = Number(process.env.BENCH_ELEMENT_RUNS) || 3;
const DELTAS = Number(process.env.BENCH_ELEMENT_DELTAS) || 5000;

async function markdownReply(tokens) {
  const engine = createLocalChatEngine();
  let text = '';
  for await (const e of engine.run({
    model: 'parley-local', instructions: null, tools: [], completionArgs: {}, handoffs: [], agent: null, signal: new AbortController().signal,
    history: [{ object: 'entry', type: 'message.input', id: 'm', created_at: new Date().toISOString(), role: 'user', content: 'Show me some markdown' }],
  })) if (e.kind === 'text') text += e.delta;
  const out = [];
  while (out.length < tokens) out.push(...tokenize(text + '\n\n'));
  return out.slice(0, tokens);
}

const PAGE = `<!doctype html><html lang="en"><head><style>
  body { margin: 0; font: 15px system-ui; }
  agent-chat, deep-chat, plain-chat { display: block; width: 420px; height: 600px; }
</style></head><body>
<script type="module" src="/agent-chat.js"></script>
<script type="module" src="/deep-chat.js"></script>
<script type="module">
  // The plain-text reference: a scrolling <div>, a <div> per message, the streamed one's textContent set per delta.
  customElements.define('plain-chat', class extends HTMLElement {
    connectedCallback() {
      this.style.overflow = 'auto';
      this.style.whiteSpace = 'pre-wrap';
    }
    add(text) {
      const div = document.createElement('div');
      div.textContent = text;
      div.style.margin = '0.75rem';
      this.append(div);
      return div;
    }
    setMessages(texts) {
      const fragment = document.createDocumentFragment();
      for (const text of texts) {
        const div = document.createElement('div');
        div.textContent = text;
        div.style.margin = '0.75rem';
        fragment.append(div);
      }
      this.replaceChildren(fragment);
    }
    scrollToEnd() {
      this.scrollTop = this.scrollHeight;
    }
  });
</script></body></html>`;

/** Runs in the page: the three elements streaming the same deltas, then each opening a 1,000-message history. */
async function measure({ deltas, historySize, runs }) {
  await Promise.all(['agent-chat', 'deep-chat', 'plain-chat'].map((n) => customElements.whenDefined(n)));
  const channel = new MessageChannel();
  /** The next task (not clamped like setTimeout): frames may paint in between. */
  const nextTask = () => new Promise((r) => { channel.port1.onmessage = () => r(); channel.port2.postMessage(0); });
  const nextFrame = () => new Promise((r) => requestAnimationFrame(() => r()));
  /** After the next frame's animation callbacks, its style, layout and paint: the frame is painted. */
  const framePainted = () => new Promise((r) => requestAnimationFrame(() => { channel.port1.onmessage = () => r(); channel.port2.postMessage(0); }));
  const forceLayout = () => document.documentElement.getBoundingClientRect() && document.body.offsetHeight;
  const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms))]);
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

  // ---- <agent-chat>, through a scripted session.
  const makeSession = (state) => {
    const listeners = new Set();
    return {
      state,
      subscribe(l) { listeners.add(l); return () => listeners.delete(l); },
      emit(next) { this.state = next; for (const l of listeners) l(next); },
      send: async () => {}, stop() {}, retry: async () => {}, regenerate: async () => {}, edit: async () => {},
      load: async () => {}, reset() {}, listConversations: async () => [], deleteConversation: async () => {}, dispose() {},
    };
  };
  const base = { conversationId: 'conv_bench', streamingEntryId: null, status: 'ready', error: null, agentName: null, notice: null };
  const now = new Date().toISOString();
  const entry = (i, role, content) => role === 'user'
    ? { object: 'entry', type: 'message.input', id: `msg_u${i}`, created_at: now, role: 'user', content }
    : { object: 'entry', type: 'message.output', id: `msg_a${i}`, created_at: now, role: 'assistant', content, agent_id: null, model: 'parley-local' };
  const prompt = 'Show me some markdown';

  const streamers = {
    async 'agent-chat'() {
      const chat = document.createElement('agent-chat');
      const session = makeSession({ ...base, entries: [entry(0, 'user', prompt)] });
      chat.session = session;
      document.body.append(chat);
      await chat.updateComplete;
      const user = session.state.entries[0];
      let text = '';
      return {
        async delta(d) {
          text += d;
          session.emit({ ...base, status: 'streaming', streamingEntryId: 'msg_a0', entries: [user, { ...entry(0, 'assistant', text), completed_at: null }] });
          await chat.updateComplete;
        },
        async end() {
          session.emit({ ...base, entries: [user, entry(0, 'assistant', text)] });
          await chat.updateComplete;
          chat.remove();
        },
      };
    },
    async 'deep-chat'() {
      const chat = document.createElement('deep-chat');
      let signals = null;
      let opened;
      const open = new Promise((r) => { opened = r; });
      chat.connect = { stream: true, handler: (_body, s) => { signals = s; s.onOpen(); opened(); } };
      document.body.append(chat);
      await within((async () => { while (typeof chat.submitUserMessage !== 'function' || !chat.shadowRoot?.querySelector('#messages')) await nextFrame(); })(), 10_000, 'deep-chat start');
      await nextFrame();
      chat.submitUserMessage({ text: prompt });
      await within(open, 10_000, 'deep-chat handler');
      return {
        async delta(d) {
          await signals.onResponse({ text: d });
        },
        async end() {
          signals.onClose();
          await nextTask();
          chat.remove();
        },
      };
    },
    async 'plain-chat'() {
      const chat = document.createElement('plain-chat');
      document.body.append(chat);
      chat.add(prompt);
      let div = null;
      let text = '';
      let scrollFrame = 0;
      return {
        async delta(d) {
          text += d;
          div ??= chat.add('');
          div.textContent = text;
          // Kept at the end once per frame, as the chats do.
          scrollFrame ||= requestAnimationFrame(() => { scrollFrame = 0; chat.scrollToEnd(); });
        },
        async end() {
          cancelAnimationFrame(scrollFrame);
          chat.remove();
        },
      };
    },
  };

  const streaming = {};
  for (const name of Object.keys(streamers)) streaming[name] = [];
  for (let run = 0; run < runs; run++) {
    for (const [name, start] of Object.entries(streamers)) {
      const s = await start();
      await framePainted();
      const times = [];
      for (const d of deltas) {
        await nextTask();
        const t0 = performance.now();
        await s.delta(d);
        forceLayout();
        times.push(performance.now() - t0);
      }
      await s.end();
      await framePainted();
      streaming[name].push({
        median: median(times),
        mean: mean(times),
        p99: [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)],
        lastOverFirst: mean(times.slice(-Math.min(500, times.length / 2))) / mean(times.slice(0, Math.min(500, times.length / 2))),
      });
    }
  }
  const streamFigures = Object.fromEntries(Object.entries(streaming).map(([name, list]) => [name, {
    median: median(list.map((r) => r.median)),
    mean: median(list.map((r) => r.mean)),
    p99: median(list.map((r) => r.p99)),
    lastOverFirst: median(list.map((r) => r.lastOverFirst)),
  }]));

  // ---- A 1,000-message history, given at once.
  const entries = [];
  const texts = [];
  for (let i = 0; i < historySize / 2; i++) {
    const q = `Question number ${i}: what about **item ${i}**?`;
    const a = `Answer ${i}:\n\n- one point\n- another point with \`code\`\n\nA closing sentence for reply ${i}.`;
    entries.push(entry(i, 'user', q), entry(i, 'assistant', a));
    texts.push(q, a);
  }
  const firstText = 'Question number 0:';
  const lastText = `closing sentence for reply ${historySize / 2 - 1}.`;
  const history = {};

  // Rounds: in each, agent-chat, the plain-text element and deep-chat open the history in turn (fresh elements),
  // so the three see the same machine; the figures are medians over the rounds, the ratios medians of each
  // round's ratio (a single open is at the mercy of whatever else the machine does in those 150 ms). The
  // reach checks run on agent-chat's last open.
  const HISTORY_ROUNDS = 5;
  const rounds = [];
  let reach = null;
  for (let round = 0; round < HISTORY_ROUNDS; round++) {
    const figures = { chat: await openAgentChat(round === HISTORY_ROUNDS - 1), plain: await openPlain(), deep: await openDeep() };
    reach = figures.chat.reach ?? reach;
    rounds.push(figures);
  }
  const deepError = rounds.find((r) => r.deep.error)?.deep.error;
  history['agent-chat'] = {
    openMs: median(rounds.map((r) => r.chat.openMs)),
    allInMs: median(rounds.map((r) => r.chat.allInMs)),
    overPlain: median(rounds.map((r) => r.chat.allInMs / r.plain.openMs)),
    overDeep: deepError ? NaN : median(rounds.map((r) => r.chat.allInMs / r.deep.openMs)),
    inPage: rounds[0].chat.inPage,
    allIn: Math.min(...rounds.map((r) => r.chat.allIn)),
    ...reach,
  };
  history['plain-chat'] = { openMs: median(rounds.map((r) => r.plain.openMs)) };
  history['deep-chat'] = deepError ? { openMs: NaN, error: deepError } : { openMs: median(rounds.map((r) => r.deep.openMs)) };

  /** agent-chat opens the history; on `checkReach`, then scrolls, searches and reopens it. */
  async function openAgentChat(checkReach) {
    const chat = document.createElement('agent-chat');
    const session = makeSession({ ...base, entries });
    await framePainted();
    const t0 = performance.now();
    chat.session = session;
    document.body.append(chat);
    await chat.updateComplete;
    await framePainted();
    const openMs = performance.now() - t0;
    const root = chat.shadowRoot;
    const transcript = root.querySelector('.transcript');
    const messages = () => [...root.querySelectorAll('.message')];
    const inView = (el) => {
      if (!el) return false;
      const a = el.getBoundingClientRect();
      const b = transcript.getBoundingClientRect();
      return a.bottom > b.top && a.top < b.bottom;
    };
    const find = (text) => messages().find((m) => m.textContent.includes(text)) ?? null;
    const inPage = messages().length;
    // Every message is in the page at the first frame (the old replies as placeholders); were any to follow
    // later frames, this is when all are in: the history's headline figure.
    for (let i = 0; i < 200 && messages().length < historySize; i++) await framePainted();
    const allInMs = performance.now() - t0;
    const allIn = messages().length;
    await framePainted();
    if (!checkReach) {
      chat.remove();
      return { openMs, allInMs, inPage, allIn };
    }
    const lastAtOpen = inView(find(lastText));
    // By scrolling, as a reader would: to the top (again while the messages laid out on the way change the
    // height), then back to the end.
    const scrollTo = async (end, text) => {
      for (let i = 0; i < 60 && !inView(find(text)); i++) {
        transcript.dispatchEvent(new WheelEvent('wheel', { deltaY: end ? 400 : -400, bubbles: true, composed: true }));
        transcript.scrollTop = end ? transcript.scrollHeight - transcript.clientHeight : 0;
        await framePainted();
      }
      return inView(find(text));
    };
    const firstByScroll = await scrollTo(false, firstText);
    const lastByScroll = await scrollTo(true, lastText);
    // By the chat's search: open it, type, Enter.
    const searchFor = async (query) => {
      let field = root.querySelector('[part~="search-input"]');
      if (!field) {
        root.querySelector('[part~="search-button"]')?.click();
        for (let i = 0; i < 20 && !field; i++) {
          await framePainted();
          field = root.querySelector('[part~="search-input"]');
        }
      }
      if (!field) return false;
      field.value = query;
      field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
      // The match is scrolled to over a few frames (the messages on the way take their real sizes).
      for (let i = 0; i < 30; i++) {
        await framePainted();
        const current = root.querySelector('.message.search-current');
        if (current && current.textContent.includes(query) && inView(current)) return true;
      }
      return false;
    };
    const firstBySearch = await searchFor(firstText);
    const lastBySearch = await searchFor(lastText);
    // Opening it again, another conversation in between: its replies come from the per-entry render cache.
    session.emit({ ...base, conversationId: 'conv_other', entries: [] });
    await chat.updateComplete;
    await framePainted();
    const t1 = performance.now();
    session.emit({ ...base, entries });
    await chat.updateComplete;
    await framePainted();
    const reopenMs = performance.now() - t1;
    chat.remove();
    return { openMs, allInMs, inPage, allIn, reach: { lastAtOpen, firstByScroll, lastByScroll, firstBySearch, lastBySearch, reopenMs } };
  }

  async function openPlain() {
    const chat = document.createElement('plain-chat');
    await framePainted();
    const t0 = performance.now();
    document.body.append(chat);
    chat.setMessages(texts);
    chat.scrollToEnd();
    await framePainted();
    const openMs = performance.now() - t0;
    chat.remove();
    return { openMs };
  }

  /** deep-chat: its `history` property (rendered when the element starts). */
  async function openDeep() {
    try {
      const chat = document.createElement('deep-chat');
      chat.history = texts.map((text, i) => ({ role: i % 2 ? 'ai' : 'user', text }));
      await framePainted();
      const t0 = performance.now();
      document.body.append(chat);
      await within((async () => { while ((chat.shadowRoot?.querySelectorAll('.message-bubble').length ?? 0) < texts.length) await nextTask(); })(), 20_000, 'deep-chat history');
      await framePainted();
      const openMs = performance.now() - t0;
      chat.remove();
      return { openMs };
    } catch (error) {
      return { openMs: NaN, error: String(error) };
    }
  }
  return { streaming: streamFigures, history };
}

export async function benchElement() {
  if (!existsSync(BUNDLE)) throw new Error('dist/browser is missing: run `npm run build`');
  if (!existsSync(DEEP_CHAT)) throw new Error('deep-chat is missing: run `npm install` (it is a devDependency)');
  const files = readdirSync(DIST).filter((f) => f.endsWith('.js'));
  const deltas = await markdownReply(DELTAS);
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run', '--disable-quic'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    await page.route('http://bench.local/**', (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/deep-chat.js') return route.fulfill({ body: readFileSync(DEEP_CHAT), contentType: 'text/javascript' });
      if (files.includes(path.slice(1))) return route.fulfill({ body: readFileSync(join(DIST, path.slice(1))), contentType: 'text/javascript' });
      if (path === '/') return route.fulfill({ body: PAGE, contentType: 'text/html' });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto('http://bench.local/');
    const { streaming: s, history: h } = await page.evaluate(measure, { deltas, historySize: 1000, runs: RUNS });
    const sizes = bundleSizes(DIST);
    const kb = (bytes) => (bytes / 1024).toFixed(1);
    const chat = sizes.firstLoad['agent-chat'];
    const pageWithAll = new Set();
    for (const name of ELEMENTS) graph(DIST, `${name}.js`, {}, pageWithAll);
    const a = s['agent-chat'];
    const d = s['deep-chat'];
    const p = s['plain-chat'];
    const ha = h['agent-chat'];
    const yes = (ok) => (ok ? 'yes' : 'NO');
    return {
      [`per delta, 5,000-token reply, median of ${RUNS} runs: agent-chat median / mean / p99 (ms)`]: `${a.median.toFixed(3)} / ${a.mean.toFixed(3)} / ${a.p99.toFixed(3)}`,
      'per delta: deep-chat median / mean / p99 (ms)': `${d.median.toFixed(3)} / ${d.mean.toFixed(3)} / ${d.p99.toFixed(3)}`,
      'per delta: plain-text element median / mean / p99 (ms)': `${p.median.toFixed(3)} / ${p.mean.toFixed(3)} / ${p.p99.toFixed(3)}`,
      'agent-chat / deep-chat, mean per delta (target ≤ 1)': (a.mean / d.mean).toFixed(2),
      'agent-chat / plain-text element, mean per delta (target ≤ 1.5)': (a.mean / p.mean).toFixed(2),
      'last 500 / first 500 deltas: agent-chat (target ≤ 1.2)': a.lastOverFirst.toFixed(2),
      'last 500 / first 500 deltas: deep-chat': d.lastOverFirst.toFixed(2),
      'last 500 / first 500 deltas: plain-text element': p.lastOverFirst.toFixed(2),
      'a 1,000-message history, every message in the page, median of 5 opens: agent-chat (ms)': `${ha.allInMs.toFixed(1)} (${ha.allIn} messages)`,
      'a 1,000-message history, first frame painted: agent-chat (ms)': ha.openMs.toFixed(1),
      'a 1,000-message history painted: deep-chat (ms)': h['deep-chat'].error ? h['deep-chat'].error : h['deep-chat'].openMs.toFixed(1),
      'a 1,000-message history painted: plain-text element (ms)': h['plain-chat'].openMs.toFixed(1),
      'a 1,000-message history, median of the rounds\' ratios: agent-chat / deep-chat (target ≤ 0.7)': ha.overDeep.toFixed(2),
      'a 1,000-message history, median of the rounds\' ratios: agent-chat / plain-text element (target ≤ 2.5)': ha.overPlain.toFixed(2),
      'agent-chat history: messages in the page at the first frame (of 1,000)': ha.inPage,
      'agent-chat history: last message in view when opened': yes(ha.lastAtOpen),
      'agent-chat history: first / last message reached by scrolling': `${yes(ha.firstByScroll)} / ${yes(ha.lastByScroll)}`,
      'agent-chat history: first / last message reached by search': `${yes(ha.firstBySearch)} / ${yes(ha.lastBySearch)}`,
      'agent-chat: open it again, another conversation in between (ms)': ha.reopenMs.toFixed(1),
      [`agent-chat first load (${chat.files.join(' + ')}), min+gzip (KB, target ≤ ${BUDGETS.agentChatFirstLoadKB})`]: kb(chat.bytes),
      'agent-chat first load / budget ratio': (chat.bytes / 1024 / BUDGETS.agentChatFirstLoadKB).toFixed(2),
      'agent-chat markdown renderer, loaded with the first reply shown (KB)': kb(sizes.chatMarkdown.bytes),
      [`agent-chat audio code, loaded on the first press of Read aloud / microphone / Hands-free (${sizes.chatAudio.files.join(' + ')}) (KB)`]: kb(sizes.chatAudio.bytes),
      'first loads of a page with all four elements (KB)': kb(gzipBytes(DIST, pageWithAll)),
      [`all four elements with the client: everything they can load but pdf.js and other languages (KB, target ≤ ${BUDGETS.allFourKB})`]: kb(sizes.allFour.bytes),
      'all four / budget ratio': (sizes.allFour.bytes / 1024 / BUDGETS.allFourKB).toFixed(2),
    };
  } finally {
    await browser.close();
  }
}
