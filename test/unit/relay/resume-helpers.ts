// Shared by the resumable-stream tests: the real local platform served over HTTP (each streamed call's
// upstream abort recorded), and reading relayed SSE over real HTTP: whole blocks, ids, the reply's text.
import { expect } from 'vitest';
import { createPlatform, type Platform } from '@parley-kit/platform';
import { serveFetch, type ServedFetch } from '../../../src/server/node-serve.js';
import { ORIGIN, readOn, within } from './helpers.js';

/** One streamed call the platform received: its path and whether its request was aborted (the relay aborted it). */
export interface UpstreamCall { path: string; aborted: boolean; whenAborted: Promise<void>; /** Resolves once its answer was sent whole. */ sent: Promise<void> }

export interface ServedPlatform {
  platform: Platform;
  served: ServedFetch;
  calls: UpstreamCall[];
  close(): Promise<void>;
}

/** The local platform (deterministic `parley-local`, tokens `tokenDelayMs` apart) behind a real HTTP server. */
export async function servePlatform(apiKey: string, tokenDelayMs: number): Promise<ServedPlatform> {
  const platform = createPlatform({ apiKey, tokenDelayMs, onError: (e) => { throw e; } });
  await platform.ready();
  const calls: UpstreamCall[] = [];
  const served = await serveFetch(async (request) => {
    if (request.method === 'POST' && new URL(request.url).pathname.startsWith('/v1/conversations')) {
      let aborted!: () => void;
      let sent!: () => void;
      const call: UpstreamCall = {
        path: new URL(request.url).pathname, aborted: false, whenAborted: new Promise((r) => { aborted = r; }), sent: new Promise((r) => { sent = r; }),
      };
      request.signal.addEventListener('abort', () => { call.aborted = true; aborted(); }, { once: true });
      calls.push(call);
      const response = await platform.fetch(request);
      if (!response.body) return response;
      const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: () => sent() }));
      return new Response(body, { status: response.status, headers: response.headers });
    }
    return platform.fetch(request);
  });
  return { platform, served, calls, async close() { await served.close(); await platform.close(); } };
}

/** One SSE block as relayed: its event name, data, id (null without) and raw text. */
export interface Block { event: string | null; data: string; id: string | null; raw: string }

/** The whole blocks of SSE `text` (comments left out; an unfinished last block too). */
export function blocksOf(text: string): Block[] {
  const parts = text.split('\n\n');
  parts.pop(); // unfinished (or empty) tail
  return parts.filter((raw) => raw.split('\n').some((l) => l && !l.startsWith(':'))).map((raw) => {
    const lines = raw.split('\n');
    const field = (name: string) => lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, ''));
    return { event: field('event')[0] ?? null, data: field('data').join('\n'), id: field('id').at(-1) ?? null, raw };
  });
}

/** The reply's text: the `content` of its `message.output.delta` events, in order. */
export function replyText(blocks: Block[]): string {
  return blocks.filter((b) => b.event === 'message.output.delta').map((b) => (JSON.parse(b.data) as { content: string }).content).join('');
}

/** The SSE text without `: ping` comments (heartbeats differ between runs). */
export function withoutPings(text: string): string {
  return text.replaceAll(': ping\n\n', '');
}

/** A streamed answer read over HTTP. */
export interface Reading {
  response: Response;
  text: () => string;
  blocks: () => Block[];
  /** Resolves with the text once the answer ended ('done') or broke ('broken'). */
  ended: Promise<'done' | 'broken'>;
  /** Drops the connection (the page going away). */
  drop: () => void;
}

/** Sends a request with the session token from the page's origin, and reads its answer as it comes. */
export async function request(url: string, token: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reading> {
  const abort = new AbortController();
  const headers: Record<string, string> = { origin: ORIGIN, authorization: `Bearer ${token}`, ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers, signal: abort.signal,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const { text, ended } = readOn(response.body);
  return { response, text, blocks: () => blocksOf(text()), ended, drop: () => abort.abort() };
}

/** Polls until `check` holds (a safety timeout, not a measurement). */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  await within((async () => { while (!check()) await new Promise((r) => setTimeout(r, 10)); })(), ms, what);
}

/** Reads to the end and returns the text (fails if the answer broke). */
export async function readAll(reading: Reading): Promise<string> {
  expect(await within(reading.ended, 30_000, 'the end of the answer')).toBe('done');
  return reading.text();
}

/** A message whose `parley-local` reply is long (a markdown demonstration, many tokens). */
export const LONG = 'Show me markdown: a heading, a table, a code snippet, a numbered list and a link';
