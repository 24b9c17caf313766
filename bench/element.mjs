// <agent-chat> in Debian Chromium: render cost per streamed delta over a 5,000-token markdown reply,
// time to open a 1,000-message history (and to open it again from the render cache), and the bundles'
// min+gzip sizes (scripts/bundle-sizes.mjs: the chat's first load, its markdown and audio chunks, all four elements). The element is fed through
// its `session` property by a scripted session (the ChatSessionApi contract), so only rendering is timed.
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createLocalChatEngine, tokenize } from '@parley-kit/platform';
import { BUDGETS, ELEMENTS, bundleSizes, graph, gzipBytes } from '../scripts/bundle-sizes.mjs';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist/browser');
const BUNDLE = join(DIST, 'agent-chat.js');

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

const PAGE = `<!doctype html><html><body><script type="module" src="/agent-chat.js"></script></body></html>`;

/** Runs in the page: a scripted session, then timings. */
async function measure({ deltas, historySize }) {
  await customElements.whenDefined('agent-chat');
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

  // Streaming: one state per delta, as ChatSession notifies.
  const chat = document.createElement('agent-chat');
  chat.style.height = '600px';
  const session = makeSession({ ...base, entries: [entry(0, 'user', 'Show me some markdown')] });
  chat.session = session;
  document.body.append(chat);
  await chat.updateComplete;
  const user = session.state.entries[0];
  let text = '';
  const perDelta = [];
  for (const d of deltas) {
    text += d;
    const t0 = performance.now();
    session.emit({ ...base, status: 'streaming', streamingEntryId: 'msg_a0', entries: [user, { ...entry(0, 'assistant', text), completed_at: null }] });
    await chat.updateComplete;
    perDelta.push(performance.now() - t0);
  }
  session.emit({ ...base, entries: [user, entry(0, 'assistant', text)] });
  await chat.updateComplete;
  chat.remove();

  // Opening a long history.
  const entries = [];
  for (let i = 0; i < historySize / 2; i++) {
    entries.push(entry(i, 'user', `Question number ${i}: what about **item ${i}**?`));
    entries.push(entry(i, 'assistant', `Answer ${i}:\n\n- one point\n- another point with \`code\`\n\nA closing sentence for reply ${i}.`));
  }
  const open = document.createElement('agent-chat');
  open.style.height = '600px';
  const t0 = performance.now();
  const history = makeSession({ ...base, entries });
  open.session = history;
  document.body.append(open);
  await open.updateComplete;
  await new Promise((r) => requestAnimationFrame(() => r()));
  const openMs = performance.now() - t0;
  // Opening it again, another conversation in between: its replies come from the per-entry render cache.
  history.emit({ ...base, conversationId: 'conv_other', entries: [] });
  await open.updateComplete;
  const t1 = performance.now();
  history.emit({ ...base, entries });
  await open.updateComplete;
  await new Promise((r) => requestAnimationFrame(() => r()));
  const reopenMs = performance.now() - t1;
  perDelta.sort((a, b) => a - b);
  const total = perDelta.reduce((a, b) => a + b, 0);
  return { median: perDelta[Math.floor(perDelta.length / 2)], p99: perDelta[Math.floor(perDelta.length * 0.99)], mean: total / perDelta.length, openMs, reopenMs };
}

export async function benchElement() {
  if (!existsSync(BUNDLE)) throw new Error('dist/browser is missing: run `npm run build`');
  const files = readdirSync(DIST).filter((f) => f.endsWith('.js'));
  const deltas = await markdownReply(5000);
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run', '--disable-quic'],
  });
  try {
    const page = await browser.newPage();
    await page.route('http://bench.local/**', (route) => {
      const path = new URL(route.request().url()).pathname;
      if (files.includes(path.slice(1))) return route.fulfill({ body: readFileSync(join(DIST, path.slice(1))), contentType: 'text/javascript' });
      if (path === '/') return route.fulfill({ body: PAGE, contentType: 'text/html' });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto('http://bench.local/');
    const r = await page.evaluate(measure, { deltas, historySize: 1000 });
    const sizes = bundleSizes(DIST);
    const kb = (bytes) => (bytes / 1024).toFixed(1);
    const chat = sizes.firstLoad['agent-chat'];
    const pageWithAll = new Set();
    for (const name of ELEMENTS) graph(DIST, `${name}.js`, {}, pageWithAll);
    return {
      'render per delta, 5,000-token reply: median (ms, target ≤ 2)': r.median.toFixed(3),
      'render per delta: p99 / mean (ms)': `${r.p99.toFixed(3)} / ${r.mean.toFixed(3)}`,
      'open a 1,000-message history (ms)': r.openMs.toFixed(1),
      'open it again, another conversation in between (render cache) (ms)': r.reopenMs.toFixed(1),
      'reopen / first open ratio': (r.reopenMs / r.openMs).toFixed(2),
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
