// Replies that survive (issue 16): a visitor in Chromium on <agent-chat>, the real local platform, two
// relay instances on a real Redis and a front server that can switch relays and cut every socket
// (harness/resume-stack.ts). A long reply is reloaded, cut, moved to the other relay, watched from a
// second tab and abandoned by the tab streaming it: every time it must end with exactly the text of the
// same prompt answered without interruption, with no action from the visitor. Another session cannot
// read the stream, and a visitor offline keeps the history and gets the message sent once back online (the
// message kept in the store when the chat is opened again offline).
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from './harness/chromium.js';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startResumeStack, type ResumeStack } from './harness/resume-stack.js';

/** Asks parley-local for its full markdown demonstration: ~290 tokens, ~12 s at 40 ms a token. */
const LONG_PROMPT = 'Show me everything in markdown, please: headings, a table, code, a list and links.';
const WAIT = { timeout: 30_000 };
const REPLY_WAIT = { timeout: 60_000 };

let stack: ResumeStack;
let browser: Browser;
/** The reply to LONG_PROMPT as the visitor sees it when nothing interrupts it (set by the first test). */
let expected = '';

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  stack = await startResumeStack({ tokenDelayMs: 40 });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A visitor's browser profile: its own IndexedDB, BroadcastChannel and Web Locks. Records what goes wrong. */
async function visitor(): Promise<{ context: BrowserContext; pageErrors: string[]; streamIds: string[]; tokens: string[] }> {
  const context = await browser.newContext();
  const pageErrors: string[] = [];
  const streamIds: string[] = [];
  const tokens: string[] = [];
  context.on('response', (r) => {
    const url = new URL(r.url());
    if (url.origin !== stack.origin) return;
    const id = r.headers()['parley-stream-id'];
    if (id && r.request().method() === 'POST') streamIds.push(id);
    if (url.pathname === '/api/session' && r.request().method() === 'POST' && r.status() === 200) {
      r.json().then((body: { token?: string }) => { if (body.token) tokens.push(body.token); }, () => {});
    }
  });
  context.on('weberror', (e) => pageErrors.push(String(e.error())));
  await context.addInitScript(recordChatControllers);
  return { context, pageErrors, streamIds, tokens };
}

/**
 * Runs in each page before its scripts: records the controllers every <agent-chat> adds through Lit's
 * `addController` (public API; as the browser tests' harness does, test/browser/helpers/agent-chat-harness.ts),
 * so `snapshot` can read the chat's session, which the element keeps private.
 */
function recordChatControllers(): void {
  const controllers = new WeakMap<HTMLElement, object[]>();
  (window as unknown as { chatControllers: typeof controllers }).chatControllers = controllers;
  const define = customElements.define;
  customElements.define = function (this: CustomElementRegistry, name, constructor, options) {
    if (name === 'agent-chat') {
      const proto = constructor.prototype as { addController(controller: object): void };
      const add = proto.addController;
      proto.addController = function (this: HTMLElement, controller: object) {
        controllers.set(this, [...(controllers.get(this) ?? []), controller]);
        add.call(this, controller);
      };
    }
    define.call(this, name, constructor, options);
  };
}

async function openChat(context: BrowserContext, query = ''): Promise<Page> {
  const page = await context.newPage();
  const logs: string[] = [];
  page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  await page.goto(`${stack.origin}/${query}`);
  try {
    await page.locator('agent-chat [part="input"]').waitFor(WAIT);
  } catch (err) {
    const html = await page.evaluate(() => document.querySelector('agent-chat')?.shadowRoot?.innerHTML ?? '(no shadow root)').catch(String);
    throw new Error(`the chat did not show its message box: ${(err as Error).message}\nconsole: ${logs.join(' | ')}\nchat: ${html.slice(0, 2000)}`);
  }
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  const input = page.locator('agent-chat [part="input"]');
  await input.fill(text);
  await input.press('Enter');
}

/** What the visitor sees: the chat's status, its replies' text (whitespace collapsed) and any error or "interrupted" line. */
async function snapshot(page: Page): Promise<{ status: string | undefined; replies: string[]; users: string[]; errors: number; interrupted: number }> {
  return page.evaluate(() => {
    const chat = document.querySelector('agent-chat');
    const controllers = chat && (window as unknown as { chatControllers: WeakMap<Element, object[]> }).chatControllers.get(chat);
    // The chat session's controller (ChatSessionController): the one with a `session`.
    const sessions = controllers?.find((c): c is { session: { state: { status: string } } | null } => 'session' in c);
    const root = chat?.shadowRoot;
    // textContent, not innerText: messages scrolled out of view skip rendering (content-visibility) and innerText reads them as empty.
    const text = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    return {
      status: sessions?.session?.state.status,
      replies: [...root?.querySelectorAll('[part~="message-assistant"] [part="bubble"]') ?? []].map(text),
      users: [...root?.querySelectorAll('[part~="message-user"] [part="bubble"]') ?? []].map(text),
      errors: root?.querySelectorAll('[part="error"]').length ?? 0,
      interrupted: root?.querySelectorAll('[part="interrupted"]').length ?? 0,
    };
  });
}

/** Waits until the last reply shows `minChars` characters or more, and returns its text then. */
async function partialReply(page: Page, minChars = 40): Promise<string> {
  let text = '';
  await expect.poll(async () => {
    const s = await snapshot(page);
    text = s.replies.at(-1) ?? '';
    return s.status === 'streaming' && text.length >= minChars;
  }, WAIT).toBe(true);
  return text;
}

/** Waits until the chat is idle with `count` replies, the last one reading `text`; returns what is shown. */
async function finalReply(page: Page, text: string, count: number) {
  await expect.poll(async () => {
    const s = await snapshot(page);
    return { status: s.status, replies: s.replies.length, last: s.replies.at(-1) };
  }, REPLY_WAIT).toEqual({ status: 'ready', replies: count, last: text });
  return snapshot(page);
}

/** Visible words in the chat saying the visitor is offline (the live region's copy is hidden). */
function offlineNote(page: Page) {
  return page.locator('agent-chat').getByText(/offline/i).filter({ visible: true });
}

/** The resumes the front server passed on for `streamId` since log index `from`. */
function resumesOf(streamId: string, from = 0) {
  return stack.log.slice(from).filter((r) => r.method === 'GET' && r.path === `/streams/${streamId}`);
}


/**
 * Opens the chat again while offline: a new element and session (what the page held in memory is gone, as
 * on a reload, which Chromium cannot do offline).
 */
async function reopenChat(page: Page): Promise<void> {
  await page.evaluate(() => {
    const old = document.querySelector('agent-chat')!;
    const fresh = document.createElement('agent-chat');
    for (const { name, value } of old.attributes) fresh.setAttribute(name, value);
    old.replaceWith(fresh);
  });
}

/** The user messages, the number of replies and of messages marked waiting. */
async function waitingView(page: Page) {
  const now = await snapshot(page);
  return { users: now.users, replies: now.replies.length, waiting: await page.locator('agent-chat [part="waiting"]').count() };
}
describe('a long reply survives reloads, cut sockets, relay switches and second tabs', () => {
  it('reference: the long reply uninterrupted', async () => {
    const { context, pageErrors } = await visitor();
    const page = await openChat(context);
    await send(page, LONG_PROMPT);
    await expect.poll(async () => {
      const s = await snapshot(page);
      return s.status === 'ready' && s.replies.length === 1;
    }, REPLY_WAIT).toBe(true);
    const s = await snapshot(page);
    expect(s.replies).toHaveLength(1);
    expect(s.errors).toBe(0);
    expect(s.interrupted).toBe(0);
    expected = s.replies[0]!;
    expect(expected.length, 'the reply is long enough to interrupt').toBeGreaterThan(500);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('reload mid-reply: the reopened chat resumes the stream and ends with the same text, no error', async () => {
    expect(expected, 'the reference reply').not.toBe('');
    const { context, pageErrors, streamIds } = await visitor();
    const page = await openChat(context);
    await send(page, LONG_PROMPT);
    const partial = await partialReply(page);
    expect(partial.length).toBeLessThan(expected.length);
    expect(streamIds, 'the relay named the stream (Parley-Stream-Id)').toHaveLength(1);
    const mark = stack.log.length;
    await page.reload();
    const s = await finalReply(page, expected, 1);
    expect(s.errors).toBe(0);
    expect(s.interrupted).toBe(0);
    expect(s.users).toEqual([LONG_PROMPT]);
    expect(resumesOf(streamIds[0]!, mark).map((r) => r.status), 'the reloaded page resumed from the relay').toContain(200);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('every socket cut mid-reply: the client resumes by itself and ends with the same text', async () => {
    const { context, pageErrors, streamIds } = await visitor();
    const page = await openChat(context);
    await send(page, LONG_PROMPT);
    const partial = await partialReply(page);
    expect(partial.length).toBeLessThan(expected.length);
    const mark = stack.log.length;
    expect(stack.cut(), 'sockets were open to cut').toBeGreaterThan(0);
    const s = await finalReply(page, expected, 1);
    expect(s.errors).toBe(0);
    expect(s.interrupted).toBe(0);
    expect(streamIds).toHaveLength(1);
    const resumes = resumesOf(streamIds[0]!, mark);
    expect(resumes.map((r) => r.status)).toContain(200);
    expect(resumes.find((r) => r.status === 200)?.lastEventId, 'resumed after the last event seen').toMatch(new RegExp(`^${streamIds[0]}:\\d+$`));
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('the network pulled mid-reply for longer than the reconnection backoff: the reply ends complete once it is back', async () => {
    const { context, pageErrors, streamIds } = await visitor();
    const page = await openChat(context);
    await send(page, LONG_PROMPT);
    const partial = await partialReply(page);
    expect(partial.length).toBeLessThan(expected.length);
    // The cable is pulled: the browser is offline and every open connection dies. 18 s is more than six
    // reconnections backing off from 250 ms take, so only waiting for the browser's `online` gets it through.
    await context.setOffline(true);
    stack.cut();
    await page.waitForTimeout(18_000);
    const mark = stack.log.length;
    await context.setOffline(false);
    const s = await finalReply(page, expected, 1);
    expect(s.errors).toBe(0);
    expect(s.interrupted).toBe(0);
    expect(resumesOf(streamIds[0]!, mark).map((r) => r.status), 'resumed from the relay once back online').toContain(200);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('streamed by relay A, cut, resumed through relay B (shared Redis): the same text', async () => {
    const { context, pageErrors, streamIds } = await visitor();
    stack.useRelay(0);
    try {
      const page = await openChat(context);
      await send(page, LONG_PROMPT);
      await partialReply(page);
      expect(stack.log.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/conversations')).at(-1)?.relay, 'the reply streams from relay A').toBe(0);
      const mark = stack.log.length;
      stack.useRelay(1);
      stack.cut();
      const s = await finalReply(page, expected, 1);
      expect(s.errors).toBe(0);
      expect(s.interrupted).toBe(0);
      const resumes = resumesOf(streamIds[0]!, mark);
      expect(resumes.length).toBeGreaterThan(0);
      expect(resumes.every((r) => r.relay === 1)).toBe(true);
      expect(resumes.map((r) => r.status), 'relay B served the resume').toContain(200);
      expect(pageErrors).toEqual([]);
    } finally {
      stack.useRelay(0);
      await context.close();
    }
  });

  it('a second tab opened mid-reply shows the same reply; closing the streaming tab lets the other finish it', async () => {
    const { context, pageErrors, streamIds } = await visitor();
    const first = await openChat(context);
    await send(first, LONG_PROMPT);
    await partialReply(first);
    // The visitor opens the site again in a second tab: it reopens the conversation and follows the live reply.
    const second = await openChat(context);
    const [a, b] = await Promise.all([finalReply(first, expected, 1), finalReply(second, expected, 1)]);
    expect(b.users).toEqual(a.users);
    expect(a.errors + b.errors).toBe(0);

    // A new message from the first tab: the second shows it and its reply as they stream…
    await send(first, LONG_PROMPT);
    await expect.poll(async () => {
      const s = await snapshot(second);
      return s.replies.length === 2 && (s.replies[1] ?? '').length >= 40;
    }, WAIT).toBe(true);
    const partial = (await snapshot(second)).replies[1]!;
    expect(partial.length).toBeLessThan(expected.length);
    // …and when the streaming tab closes mid-reply, the other takes over and finishes it.
    expect(streamIds, 'one stream per message, both from the first tab').toHaveLength(2);
    const mark = stack.log.length;
    await first.close();
    const s = await finalReply(second, expected, 2);
    expect(resumesOf(streamIds[1]!, mark).map((r) => r.status), 'the second tab resumed the stream from the relay').toContain(200);
    expect(s.replies[0]).toBe(expected);
    expect(s.users).toEqual([LONG_PROMPT, LONG_PROMPT]);
    expect(s.errors).toBe(0);
    expect(s.interrupted).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('another session cannot read or stop the stream: 410 and no event bytes', async () => {
    const owner = await visitor();
    const page = await openChat(owner.context);
    await send(page, LONG_PROMPT);
    await partialReply(page);
    const streamId = owner.streamIds[0]!;
    expect(streamId).toMatch(/^rs_[A-Za-z0-9_-]{22}$/);

    // Another visitor: its own browser profile and its own relay session.
    const other = await visitor();
    const stranger = await openChat(other.context, '?resume=none');
    const foreign = await stranger.evaluate(async (id) => {
      const session = await fetch('/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const { token } = await session.json() as { token: string };
      const auth = { authorization: `Bearer ${token}` };
      const read = async (init: RequestInit) => {
        const r = await fetch(`/api/streams/${id}`, { ...init, signal: AbortSignal.timeout(15_000) });
        return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
      };
      return {
        fromStart: await read({ headers: auth }),
        fromEvent: await read({ headers: { ...auth, 'last-event-id': `${id}:1` } }),
        stop: (await fetch(`/api/streams/${id}`, { method: 'DELETE', headers: auth, signal: AbortSignal.timeout(15_000) })).status,
      };
    }, streamId);
    for (const answer of [foreign.fromStart, foreign.fromEvent]) {
      expect(answer.status).toBe(410);
      expect(answer.type).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'stream_gone', message: 'This reply can no longer be resumed.' });
      expect(answer.body).not.toMatch(/^(id|data|event):/m);
      expect(answer.body).not.toContain(streamId);
    }
    expect(foreign.stop, 'a stop for a stream not ours is answered alike and ignored').toBe(204);

    // The owner's reply is untouched, and the owner can read its stream again from the relay.
    const s = await finalReply(page, expected, 1);
    expect(s.errors + s.interrupted).toBe(0);
    const token = owner.tokens.at(-1)!;
    const own = await page.evaluate(async ({ id, token }) => {
      const r = await fetch(`/api/streams/${id}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(15_000) });
      return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
    }, { id: streamId, token });
    expect(own.status).toBe(200);
    expect(own.type).toMatch(/^text\/event-stream/);
    expect(own.body).toMatch(new RegExp(`^id: ?${streamId}:1$`, 'm'));
    expect(own.body).toContain('conversation.response.done');
    expect(owner.pageErrors.concat(other.pageErrors)).toEqual([]);
    await Promise.all([owner.context.close(), other.context.close()]);
  });
});

describe('offline', () => {
  it('history opens from the store; a message sent offline says so at once and is sent when the connection is back', async () => {
    const { context, pageErrors } = await visitor();
    const page = await openChat(context);
    await send(page, 'Hello from the shop');
    await expect.poll(async () => {
      const s = await snapshot(page);
      return s.status === 'ready' && s.replies.length === 1 && s.replies[0]!.length > 0;
    }, REPLY_WAIT).toBe(true);
    const before = await snapshot(page);

    await context.setOffline(true);
    // A chat started offline (as after opening the page from the cache) shows the conversation from the store.
    await page.evaluate(() => {
      const old = document.querySelector('agent-chat')!;
      const fresh = document.createElement('agent-chat');
      for (const { name, value } of old.attributes) fresh.setAttribute(name, value);
      old.replaceWith(fresh);
    });
    await expect.poll(async () => {
      const s = await snapshot(page);
      return { users: s.users, replies: s.replies };
    }, WAIT).toEqual({ users: before.users, replies: before.replies });

    // Sending offline: the visitor is told at once, the message waits in the transcript.
    await send(page, 'Are you there?');
    const note = page.locator('agent-chat [part~="offline-notice"]');
    await note.waitFor(WAIT);
    expect(await note.innerText()).toMatch(/offline.*sent when the connection is back/i);
    expect(await offlineNote(page).count(), 'the visitor reads that they are offline').toBeGreaterThan(0);
    expect(await page.locator('agent-chat [part="waiting"]').count(), 'the message is marked as waiting').toBe(1);
    expect(await note.locator('[part="cancel-waiting-button"]').count(), 'with a way not to send it').toBe(1);
    let s = await snapshot(page);
    expect(s.users).toEqual(['Hello from the shop', 'Are you there?']);
    expect(s.replies).toHaveLength(1);

    // The chat is opened again while still offline (a new element and session: what the page held in memory is
    // gone, as on a reload, which Chromium cannot do offline): the message is read back from the store, waiting.
    await reopenChat(page);
    await expect.poll(async () => waitingView(page), WAIT).toEqual({ users: ['Hello from the shop', 'Are you there?'], replies: 1, waiting: 1 });
    await note.waitFor(WAIT);

    // Back online: it goes out by itself and is answered, once.
    await context.setOffline(false);
    await expect.poll(async () => {
      const now = await snapshot(page);
      return now.status === 'ready' && now.replies.length === 2 && now.replies[1]!.includes('Are you there?');
    }, REPLY_WAIT).toBe(true);
    s = await snapshot(page);
    expect(s.users).toEqual(['Hello from the shop', 'Are you there?']);
    expect(s.errors).toBe(0);
    expect(await offlineNote(page).count(), 'the offline note is gone').toBe(0);
    expect(await page.locator('agent-chat [part="waiting"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('a first message written offline in a new chat is kept when the chat is opened again offline, then starts its conversation once', async () => {
    const { context, pageErrors } = await visitor();
    const page = await openChat(context);
    await send(page, 'Hello from the shop'); // an older conversation, which the chat would otherwise resume
    await expect.poll(async () => {
      const s = await snapshot(page);
      return s.status === 'ready' && s.replies.length === 1 && s.replies[0]!.length > 0;
    }, REPLY_WAIT).toBe(true);
    await page.locator('agent-chat [part="new-button"]').click();
    await expect.poll(async () => (await snapshot(page)).users, WAIT).toEqual([]);

    await context.setOffline(true);
    await send(page, 'A new question, asked offline');
    await page.locator('agent-chat [part="waiting"]').waitFor(WAIT);
    await reopenChat(page);
    await expect.poll(async () => waitingView(page), WAIT).toEqual({ users: ['A new question, asked offline'], replies: 0, waiting: 1 });

    await context.setOffline(false);
    await expect.poll(async () => {
      const now = await snapshot(page);
      return now.status === 'ready' && now.replies.length === 1 && now.replies[0]!.includes('A new question, asked offline');
    }, REPLY_WAIT).toBe(true);
    const s = await snapshot(page);
    expect(s.users).toEqual(['A new question, asked offline']);
    expect(s.errors).toBe(0);
    expect(await page.locator('agent-chat [part="waiting"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
