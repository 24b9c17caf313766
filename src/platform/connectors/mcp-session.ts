/**
 * The platform as an MCP client of a connector's server (streamable HTTP, @modelcontextprotocol/sdk).
 *
 * Every operation opens its own session and closes it afterwards: connectors are called a few times
 * per turn at most, the server URL or credentials may change between calls, and nothing stays open
 * that the platform would have to close on shutdown. Connecting and each request are bounded by a
 * timeout; failures become platform errors in the generic shape (502 unreachable or failing server,
 * 504 timeout, 422 for arguments the server rejects) — never a 500 or a hang.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { PlatformHttpError, genericError, invalidField } from '../errors.js';

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

/** Opens a session to the target, runs `work`, and closes the session whatever happens. */
export async function withMcpSession<T>(
  target: McpTarget,
  work: (client: Client, options: { timeout: number; signal?: AbortSignal }) => Promise<T>,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const timeout = options.timeoutMs ?? MCP_TIMEOUT_MS;
  // The SDK leaves an abort listener on the signal of every request: give it a session-scoped signal
  // that follows the caller's, so a long-lived caller signal does not collect listeners.
  const session = new AbortController();
  const follow = () => session.abort(options.signal?.reason);
  if (options.signal?.aborted) follow();
  options.signal?.addEventListener('abort', follow, { once: true });
  const requestOptions = { timeout, signal: session.signal };
  const transport = new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers: target.headers } });
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport, requestOptions);
    return await work(client, requestOptions);
  } catch (err) {
    throw mcpFailure(target, err);
  } finally {
    // Ending the session is a courtesy to the server: bounded, and close() aborts it if still pending.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([transport.terminateSession().catch(() => {}), new Promise((r) => { timer = setTimeout(r, timeout); })]);
    clearTimeout(timer);
    await client.close().catch(() => {});
    options.signal?.removeEventListener('abort', follow);
  }
}

/** All tools of the server (following `nextCursor` pages). */
export async function listMcpTools(target: McpTarget, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<McpTool[]> {
  return withMcpSession(target, allTools, options);
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

/**
 * Calls one tool; null when the server has no tool of that name. A tool that fails answers a result
 * with `isError: true`, not an exception.
 */
export async function callMcpTool(
  target: McpTarget, name: string, args: Record<string, unknown>, options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<CallToolResult | null> {
  return withMcpSession(target, async (client, requestOptions) => {
    // Servers report unknown tools in different ways (a JSON-RPC error or an error result); ask first.
    if (!(await allTools(client, requestOptions)).some((t) => t.name === name)) return null;
    return (await client.callTool({ name, arguments: args }, undefined, requestOptions)) as CallToolResult;
  }, options);
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

function mcpFailure(target: McpTarget, err: unknown): PlatformHttpError {
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
