import { createPlatform, type Platform, type PlatformOptions } from '@parley-kit/platform';
import { ParleyClient, type ParleyClientOptions } from '../../../src/client/client.js';
import type { ChatSession } from '../../../src/client/chat-session.js';
import type { ChatState } from '../../../src/client/contracts.js';

export const API_KEY = 'k';
export const BASE = 'http://platform.test';

/** The local platform in memory, called through its fetch handler (no port). */
export async function startPlatform(options: Partial<PlatformOptions> = {}): Promise<Platform> {
  const platform = createPlatform({ apiKey: API_KEY, onError: () => {}, ...options });
  await platform.ready();
  return platform;
}

/** A fetch that calls the platform directly. */
export function platformFetch(platform: Platform): typeof fetch {
  return (input, init) => platform.fetch(new Request(input, init));
}

/** A client talking to the platform with a static token. */
export function platformClient(platform: Platform, options: Partial<ParleyClientOptions> = {}): ParleyClient {
  return new ParleyClient({ baseUrl: BASE, getToken: async () => API_KEY, fetch: platformFetch(platform), retry: { baseDelayMs: 5, maxDelayMs: 50 }, ...options });
}

/** Calls the platform as a server would (for set-up: agents, checks). */
export async function callPlatform(platform: Platform, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
  const res = await platform.fetch(new Request(BASE + path, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

export const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Get the current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

// ------------------------------------------------------------ scripted fetch

export interface Recorded { url: string; method: string; headers: Record<string, string>; body: any; signal: AbortSignal | null }

/** A step of a scripted fetch: a Response (or a function making one), or an error to reject with. */
export type Step = Response | Error | ((req: Recorded) => Response | Promise<Response>);

/** A fetch that answers from a script, one step per call, and records the requests. */
export function scriptedFetch(steps: Step[]) {
  const calls: Recorded[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => { headers[k] = v; });
    const rec: Recorded = {
      url: String(input), method: init?.method ?? 'GET', headers,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body, signal: init?.signal ?? null,
    };
    calls.push(rec);
    const step = steps.shift();
    if (!step) throw new Error(`unexpected request ${rec.method} ${rec.url}`);
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(rec) : step;
  }) as typeof fetch;
  return { fetch: fetchFn, calls };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** One SSE frame for an event object. */
export function sse(event: { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * An event-stream Response whose body sends `frames`, then closes, errors (`end: Error`) or stays
 * open (`end: 'open'`). `gate` delays the frames after the first until it resolves.
 */
export function sseResponse(frames: string[], end: 'close' | Error | 'open' = 'close', signal?: AbortSignal | null): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal?.addEventListener('abort', () => {
        try { controller.error(Object.assign(new Error('aborted'), { name: 'AbortError' })); } catch { /* closed */ }
      });
    },
    async pull(controller) {
      await new Promise((r) => setTimeout(r, 1));
      if (i < frames.length) {
        controller.enqueue(encoder.encode(frames[i++]));
        return;
      }
      if (end === 'close') controller.close();
      else if (end instanceof Error) controller.error(end);
      else await new Promise(() => {});
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

export const started = (id = 'conv_1') => sse({ type: 'conversation.response.started', conversation_id: id } as any);
export const delta = (text: string, id = 'msg_1') => sse({
  type: 'message.output.delta', id, content: text, output_index: 0, content_index: 0, model: 'm', agent_id: null, role: 'assistant',
} as any);
export const done = () => sse({ type: 'conversation.response.done', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } as any);

/** Collects a stream's events; returns them with the error it threw (if any). */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<{ events: T[]; error: unknown }> {
  const events: T[] = [];
  try {
    for await (const e of iterable) events.push(e);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

/**
 * Resolves when `session`'s state passes `check`; rejects after `ms` (a bound on a hang, not a timing
 * claim) naming `what` and where the state was.
 */
export function untilState(session: ChatSession, check: (s: ChatState) => boolean, what: string, ms = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check(session.state)) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}: ${JSON.stringify({ status: session.state.status, following: session.state.following, waiting: session.state.waiting })}`));
    }, ms);
    const off = session.subscribe((s) => {
      if (!check(s)) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
