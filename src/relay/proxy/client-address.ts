/**
 * Where a request comes from. Web `Request`s carry no socket, so the host passes the socket address
 * in the relay's env (the Node adapter does; `@hono/node-server`'s own env works too). A client's
 * `X-Forwarded-For` is only believed when `trustProxy` says how many proxies stand in front.
 */
import type { BodyRateLimits } from './body-rate.js';
import type { UpstreamSend } from './forward.js';
import type { RequestRecord } from '../watch.js';

/** Options deciding where the client address comes from. */
export interface ClientAddressOptions {
  /**
   * Trust `X-Forwarded-For` from this many proxy hops in front of the relay (`true` = 1).
   * Default false: the header is ignored, since any client can send it.
   */
  trustProxy?: boolean | number;
}

/** What a Node adapter (or another host) passes with each request: the socket's view of the client. */
export interface RelayEnv {
  /** Client address as seen by the host. */
  clientIp?: string;
  /** The raw request target (`/api/v1/…?x`), before any URL normalisation. */
  rawTarget?: string;
  /**
   * The host's own upstream client, used instead of the global `fetch` when the relay has no `upstream.fetch`
   * (the Node adapter passes a keep-alive `node:http` client: much cheaper than undici's fetch).
   */
  upstreamSend?: UpstreamSend;
  /**
   * Reads the whole request body straight from the host's socket, instead of `request.body` (the Node
   * adapter's; called at most once). Fails with an `IncomingBodyError` (`reason`: too-large, idle, slow, closed).
   */
  readBody?: (limits: BodyRateLimits & { maxBytes: number }) => Promise<Uint8Array>;
  /**
   * Calls `listener` once when the client goes away before its answer is complete (at once when it is
   * gone already); returns the unlink. The Node adapter's, from its response's `close`: cheaper than
   * `request.signal`, whose abort controller the host makes on first use. Without it, `request.signal` is used.
   */
  onClientGone?: (listener: () => void) => () => void;
  /**
   * Keeps the host running this request's work until `promise` settles, after the answer is sent or the
   * client left: a Worker's `ctx.waitUntil` (Cloudflare Workers, workerd, Vercel Edge). A host that tears a
   * request's I/O down with its client needs it for a resumable reply to be read to its end after the
   * visitor's connection drops (so a resume gets all of it). Node keeps running without it.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Set to null by a host that wants to know how the request went (metrics, access log); the relay then
   * writes its record here as the answer's head is ready (watch.ts).
   */
  record?: RequestRecord | null;
  /** `@hono/node-server` passes the Node request as `incoming`; its socket address and raw URL are used. */
  incoming?: { url?: string; socket?: { remoteAddress?: string } };
}

/** The client address: from trusted proxy hops if configured, else from the host (socket), else `unknown`. */
export function clientAddress(request: Request, env: RelayEnv | undefined, options: ClientAddressOptions): string {
  const socket = env?.clientIp ?? env?.incoming?.socket?.remoteAddress;
  const hops = options.trustProxy === true ? 1 : typeof options.trustProxy === 'number' ? options.trustProxy : 0;
  if (hops > 0) {
    const chain = (request.headers.get('x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    // The nearest proxy appends the address it saw last; `hops` trusted proxies → the hops-th from the right.
    const candidate = chain[chain.length - hops];
    if (candidate && parseIp(candidate)) return candidate;
  }
  return socket ?? 'unknown';
}

/** Keys of recently seen addresses (a client sends many requests; its key is worked out once). */
const recentKeys = new Map<string, string>();
const RECENT_KEYS = 4096;

/** The rate-limit key of an address: IPv4 as is, IPv6 by its /56 prefix, IPv4-mapped IPv6 as IPv4. */
export function addressKey(address: string): string {
  let key = recentKeys.get(address);
  if (key === undefined) {
    key = keyOf(address);
    if (recentKeys.size >= RECENT_KEYS) recentKeys.clear();
    recentKeys.set(address, key);
  }
  return key;
}

function keyOf(address: string): string {
  const ip = parseIp(address);
  if (!ip) return address.slice(0, 64);
  if (ip.kind === 4) return ip.text;
  const h = ip.hextets;
  return `${h[0]!.toString(16)}:${h[1]!.toString(16)}:${h[2]!.toString(16)}:${(h[3]! & 0xff00).toString(16)}::/56`;
}

type ParsedIp = { kind: 4; text: string } | { kind: 6; hextets: number[] };

/** Parses IPv4 (strict: four decimal octets 0–255) and IPv6 (with `::`, zone ids and embedded IPv4). */
export function parseIp(input: string): ParsedIp | null {
  const address = input.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = parseIpv4(address);
  if (v4) return { kind: 4, text: v4.join('.') };
  if (!address.includes(':')) return null;
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const part = (s: string): number[] | null => {
    if (!s) return [];
    const out: number[] = [];
    const pieces = s.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i]!;
      if (i === pieces.length - 1 && p.includes('.')) {
        const four = parseIpv4(p);
        if (!four) return null;
        out.push((four[0]! << 8) | four[1]!, (four[2]! << 8) | four[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return null;
    }
    return out;
  };
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const hextets = [...head, ...new Array(missing).fill(0), ...tail];
  // IPv4-mapped (::ffff:a.b.c.d): the same client as a.b.c.d.
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    return { kind: 4, text: [hextets[6]! >> 8, hextets[6]! & 0xff, hextets[7]! >> 8, hextets[7]! & 0xff].join('.') };
  }
  return { kind: 6, hextets };
}

function parseIpv4(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const nums = parts.map((p) => (/^(0|[1-9][0-9]{0,2})$/.test(p) ? Number(p) : NaN));
  return nums.every((n) => n >= 0 && n <= 255) ? nums : null;
}
