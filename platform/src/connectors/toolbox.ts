/**
 * Connector tools in a conversation: a `{type:"connector", connector_id}` tool offers the connector's MCP
 * tools to the chat engine as functions, and the platform (not the client) runs the ones the engine calls.
 *
 * - The connector is named by id or name; unknown, or not visible to the caller → 404.
 * - A connector deactivated at one of the caller's levels offers no tools (the turn goes on without them).
 * - `tool_configuration.include` / `exclude` filter the MCP tools by name; a name already offered (a
 *   function tool of the request, or an earlier connector's tool) is not offered twice.
 * - Running a tool never fails the turn: an unreachable server or an error result becomes a result the
 *   engine reads (`is_error: true` in the execution's `info`).
 */
import type { Tool, ToolConfiguration, ToolReferenceChunk } from 'parley-kit/types';
import type { Caller } from '../http/caller.js';
import type { PlatformContext } from '../http/context.js';
import { PlatformHttpError, notFound } from '../http/errors.js';
import { canSee, consumerOf, mcpTarget } from './access.js';
import { openMcpSession, toolResultText, type McpSession } from './mcp-session.js';
import { createConnectorStore, type ConnectorRecord } from './store.js';

/** What running one connector tool produced. */
export interface ConnectorToolOutcome {
  /** The connector's name (the key of `usage.connectors`). */
  connector: string;
  /** Text fed back to the engine as the tool's result. */
  text: string;
  /** The `info` of the `tool.execution` entry. */
  info: Record<string, unknown>;
  /** Sources to cite in the reply that follows, as `tool_reference` chunks (the document library's). */
  references?: ToolReferenceChunk[];
}

export interface ConnectorToolbox {
  /** The MCP tools, as function tools for the engine. */
  functions: Tool[];
  /** Whether the engine calling `name` means running a connector tool. */
  has(name: string): boolean;
  run(name: string, argumentsJson: string): Promise<ConnectorToolOutcome>;
  /** Ends the MCP sessions the toolbox holds (one per connector, for the turn). */
  close(): Promise<void>;
}

type ConnectorTool = Extract<Tool, { type: 'connector' }>;

function allowed(name: string, config: ToolConfiguration | null | undefined): boolean {
  if (config?.include?.length && !config.include.includes(name)) return false;
  return !config?.exclude?.includes(name);
}

/**
 * The connector tools among `tools`, opened for `caller` (its visibility, activation switches and credentials),
 * with one MCP session per connector that lists its tools and runs the engine's calls until `close()`; the
 * sessions follow `signal`. Null when `tools` has no connector tool. Throws a PlatformHttpError (404, 502, 504)
 * when a connector cannot be used (the sessions already opened are closed first).
 */
export async function openConnectorToolbox(
  ctx: PlatformContext, tools: readonly Tool[], caller: Caller, signal: AbortSignal,
): Promise<ConnectorToolbox | null> {
  const declared = tools.filter((t): t is ConnectorTool => t.type === 'connector');
  if (!declared.length) return null;
  const store = createConnectorStore(ctx.db);
  const taken = new Set(tools.flatMap((t) => (t.type === 'function' ? [t.function.name] : [])));
  const routes = new Map<string, { record: ConnectorRecord; session: McpSession }>();
  const sessions: McpSession[] = [];
  const functions: Tool[] = [];
  const close = async () => { await Promise.all(sessions.map((s) => s.close())); };

  try {
    for (const tool of declared) {
      const record = await store.find(tool.connector_id, caller.workspaceId);
      if (!record || !canSee(record, caller)) throw notFound(`Connector '${tool.connector_id}' (a tool of this conversation) not found`);
      if ((await store.blockedAt(record.id, consumerOf(caller))).length) continue;
      const target = await mcpTarget(store, record, caller, { authorization: tool.authorization?.value ?? null });
      const session = await openMcpSession(target, { signal });
      sessions.push(session);
      for (const mcp of await session.listTools()) {
        if (taken.has(mcp.name) || !allowed(mcp.name, tool.tool_configuration)) continue;
        taken.add(mcp.name);
        routes.set(mcp.name, { record, session });
        functions.push({
          type: 'function',
          function: { name: mcp.name, description: mcp.description ?? mcp.title ?? '', parameters: mcp.inputSchema as Record<string, unknown> },
        });
      }
    }
  } catch (err) {
    await close();
    throw err;
  }

  return {
    functions,
    has: (name) => routes.has(name),
    close,
    async run(name, argumentsJson) {
      const route = routes.get(name)!;
      const base = { connector_id: route.record.id, connector_name: route.record.name, tool: name };
      const failed = (message: string): ConnectorToolOutcome => ({ connector: route.record.name, text: message, info: { ...base, is_error: true, error: message } });
      let args: unknown;
      try {
        args = argumentsJson.trim() ? JSON.parse(argumentsJson) : {};
      } catch {
        return failed(`The arguments of ${name} are not valid JSON`);
      }
      if (args === null || typeof args !== 'object' || Array.isArray(args)) return failed(`The arguments of ${name} must be a JSON object`);
      try {
        const result = await route.session.callTool(name, args as Record<string, unknown>);
        if (!result) return failed(`Connector '${route.record.name}' no longer has a tool '${name}'`);
        const text = toolResultText(result);
        return { connector: route.record.name, text, info: { ...base, is_error: result.isError === true, content: result.content } };
      } catch (err) {
        return failed(err instanceof PlatformHttpError ? err.message : String(err));
      }
    },
  };
}
