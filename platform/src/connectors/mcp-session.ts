/**
 * The platform as an MCP client of a connector's server (streamable HTTP, @modelcontextprotocol/sdk).
 *
 * A session lives no longer than what it serves: one API call (tools list or call), or one conversation
 * turn (the toolbox lists the tools and runs the engine's calls in one session, closed when the turn
 * ends), so URL or credential changes apply from the next call and nothing stays open at shutdown. Connecting and each request are bounded by a
 * timeout; failures become platform errors in the generic shape (502 unreachable or failing server,
 * 504 timeout, 422 for arguments the server rejects) — never a 500 or a hang.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { PlatformHttpError, genericError, invalidField } from '../http/errors.js';

export type { McpTool };

/** Where and how to reach one connector's MCP server. */
export interface McpTarget {
  /** The connector's name, for error messages. */
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** Default bound on connecting and on each request to an MCP server. */
export const MCP_TIMEOUT_MS = 10_000;

const CLIENT_INFO = { name: 'parley-local-platform', version: '1.0.0' };

/**
 * The SDK's client, loaded with the first connector call rather than at start: with its schemas it is about
 * 10 MB of the platform's memory at rest, which most platforms never use.
 */
let sdk: Promise<{
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
}> | undefined;
const loadSdk = () => (sdk ??= Promise.all([
  import('@modelcontextprotocol/sdk/client/index.js'),
  import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  import('@modelcontextprotocol/sdk/types.js'),
]).then(([client, transport, types]) => ({ Client: client.Client, StreamableHTTPClientTransport: transport.StreamableHTTPClientTransport, types })));

/** An open session to one connector's server, for several operations (e.g. one conversation turn). */
export interface McpSession {
  /** All tools of the server (following `nextCursor` pages). */
  listTools(): Promise<McpTool[]>;
  /**
   * Calls one tool; null when the server has no tool of that name. A tool that fails answers a result
   * with `isError: true`, not an exception.
   */
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult | null>;
  /** Ends the session; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens a session to the target (connect bounded by the timeout; failures are platform errors). It follows
 * `signal`: aborting it aborts what is in flight. Close it when done.
 */
export async function openMcpSession(target: McpTarget, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<McpSession> {
  const timeout = options.timeoutMs ?? MCP_TIMEOUT_MS;
  const { Client, StreamableHTTPClientTransport, types } = await loadSdk();
  // The SDK leaves an abort listener on the signal of every request: give it a session-scoped signal
  // that follows the caller's, so a long-lived caller signal does not collect listeners.
  const session = new AbortController();
  const follow = () => session.abort(options.signal?.reason);
  if (options.signal?.aborted) follow();
  options.signal?.addEventListener('abort', follow, { once: true });
  const requestOptions = { timeout, signal: session.signal };
  const transport = new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers: target.headers } });
  const client = new Client(CLIENT_INFO);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= (async () => {
    // Ending the session is a courtesy to the server: bounded, and close() aborts it if still pending.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([transport.terminateSession().catch(() => {}), new Promise((r) => { timer = setTimeout(r, timeout); })]);
    clearTimeout(timer);
    await client.close().catch(() => {});
    options.signal?.removeEventListener('abort', follow);
  })());
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw mcpFailure(target, err, types);
    }
  };
  try {
    await guard(() => client.connect(transport, requestOptions));
  } catch (err) {
    await close();
    throw err;
  }
  let known: McpTool[] | undefined;
  return {
    listTools: () => guard(async () => (known = await allTools(client, requestOptions))),
    callTool: (name, args) => guard(async () => {
      // Servers report unknown tools in different ways (a JSON-RPC error or an error result); ask first.
      known ??= await allTools(client, requestOptions);
      if (!known.some((t) => t.name === name)) return null;
      return (await client.callTool({ name, arguments: args }, undefined, requestOptions)) as CallToolResult;
    }),
    close,
  };
}

/** Opens a session, runs `work` on it, and closes it whatever happens. */
async function withMcpSession<T>(target: McpTarget, work: (session: McpSession) => Promise<T>, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<T> {
  const session = await openMcpSession(target, options);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** All tools of the server, in a session of their own. */
export async function listMcpTools(target: McpTarget, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<McpTool[]> {
  return withMcpSession(target, (session) => session.listTools(), options);
}

async function allTools(client: Client, requestOptions: { timeout: number; signal?: AbortSignal }): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  // Bounded, in case a server keeps answering with a cursor.
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor ? { cursor } : undefined, requestOptions);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** Calls one tool in a session of its own; null when the server has no tool of that name. */
export async function callMcpTool(
  target: McpTarget, name: string, args: Record<string, unknown>, options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<CallToolResult | null> {
  return withMcpSession(target, (session) => session.callTool(name, args), options);
}

/** The text a model is given for a tool result: its text parts, and a short note for anything else. */
export function toolResultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((c) => {
    switch (c.type) {
      case 'text': return c.text;
      case 'resource_link': return `[${c.name}](${c.uri})`;
      case 'resource': return 'text' in c.resource ? String(c.resource.text) : `(resource ${c.resource.uri})`;
      default: return `(${c.type} content)`;
    }
  });
  if (!parts.length && result.structuredContent) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

function mcpFailure(target: McpTarget, err: unknown, { McpError, ErrorCode }: typeof import('@modelcontextprotocol/sdk/types.js')): PlatformHttpError {
  if (err instanceof PlatformHttpError) return err;
  const where = `connector '${target.name}' (${target.url})`;
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) {
      return genericError(504, `The MCP server of ${where} did not answer in time`, 'server_error', 'connector_timeout');
    }
    if (err.code === ErrorCode.InvalidParams) {
      return invalidField(['body', 'arguments'], `The MCP server of ${where} rejected the arguments: ${err.message}`, 'value_error');
    }
    return genericError(502, `The MCP server of ${where} answered with an error: ${err.message}`, 'server_error', 'connector_error');
  }
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return genericError(504, `The MCP server of ${where} did not answer in time`, 'server_error', 'connector_timeout');
  }
  return genericError(502, `Could not reach the MCP server of ${where}: ${message}`, 'server_error', 'connector_unreachable');
}
