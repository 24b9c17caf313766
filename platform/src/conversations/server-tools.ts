/**
 * The tools the platform runs itself in a turn (connectors' MCP tools and the document library), opened together
 * as one toolbox: the engine is offered their functions, and a call to one of them is run here (turns.ts).
 */
import type { Tool } from 'parley-kit/types';
import type { Caller } from '../http/caller.js';
import type { PlatformContext } from '../http/context.js';
import { openConnectorToolbox, type ConnectorToolbox } from '../connectors/toolbox.js';
import { openLibraryToolbox } from '../libraries/tool.js';

/** The tool types the platform runs; the engine sees them only as the toolbox's functions. */
const SERVER_TOOL_TYPES: ReadonlySet<Tool['type']> = new Set(['connector', 'document_library']);

/**
 * The server tools among `tools` for `caller`, or null when there are none; `tools` is what the engine is
 * offered: the other declared tools (minus functions a server tool shadows) and the toolbox's functions.
 * Throws a PlatformHttpError (404, 502, 504) when a tool cannot be used; what was opened is closed first.
 */
export async function openServerTools(
  ctx: PlatformContext, declared: readonly Tool[], caller: Caller, signal: AbortSignal,
): Promise<{ toolbox: ConnectorToolbox | null; tools: Tool[] }> {
  const library = await openLibraryToolbox(ctx, declared, caller);
  const connectors = await openConnectorToolbox(ctx, declared, caller, signal);
  const boxes = [library, connectors].filter((b): b is ConnectorToolbox => b !== null);
  if (!boxes.length) return { toolbox: null, tools: [...declared] };
  const owner = (name: string) => boxes.find((b) => b.has(name));
  const toolbox: ConnectorToolbox = {
    functions: boxes.flatMap((b) => b.functions),
    has: (name) => owner(name) !== undefined,
    run: (name, args) => owner(name)!.run(name, args),
    close: async () => { await Promise.all(boxes.map((b) => b.close())); },
  };
  const kept = declared.filter((t) => !SERVER_TOOL_TYPES.has(t.type) && !(t.type === 'function' && library?.has(t.function.name)));
  return { toolbox, tools: [...kept, ...toolbox.functions] };
}
