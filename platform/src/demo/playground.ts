/**
 * What the playground page (`/playground`, parley-kit's demo/playground.html) needs from `parley start` to write
 * a runnable embed snippet: the kit's version (the CDN tag is pinned to it), the platform a printed
 * `parley-relay` command should use as its upstream, how that command gets the platform key, and the demo's agent.
 * The page reads the elements' attributes, properties and CSS properties from `/custom-elements.json` itself.
 */
import { DEFAULT_OCR_MODEL, DEFAULT_REALTIME_MODEL, DEFAULT_TRANSCRIPTION_MODEL } from 'parley-kit/client';
import { ALL_SCOPES } from 'parley-kit/relay';

/** How the printed relay command gets the platform key: the local platform's public dev default, or a variable to export. */
export type PlaygroundKey = { value: string } | { env: string };

export interface PlaygroundConfig {
  /** parley-kit's version: the CDN tag pins it. */
  version: string;
  /** The platform base URL for `parley-relay --upstream`. */
  upstream: string;
  key: PlaygroundKey;
  /** The agent (or model) the demo talks to: the playground's default `agent-id`. */
  agentId?: string;
  model?: string;
  /** The models the elements ask for when a page names none (a relay serving them lists them). */
  defaultModels: { transcription: string; realtime: string; ocr: string };
  /** Every scope a relay session may be given (`parley-relay --scope`). */
  scopes: readonly string[];
}

export interface PlaygroundSetup {
  version: string;
  /** The real platform's base URL and key variable when `parley start` runs against it; else the local platform. */
  real?: { baseUrl: string };
  /** This server's URL (the local platform is under it, /v1). */
  serverUrl: string;
  /** Whether the local platform's key is the dev default (public, printed at start) rather than PARLEY_API_KEY. */
  devKey?: string;
  demo: { agentId?: string; model?: string };
}

/** The answer of `/playground-config.json`. The key is given only when it is the dev default everyone knows. */
export function playgroundConfig(setup: PlaygroundSetup): PlaygroundConfig {
  const key: PlaygroundKey = setup.real ? { env: 'PLATFORM_API_KEY' } : setup.devKey ? { value: setup.devKey } : { env: 'PARLEY_API_KEY' };
  return {
    version: setup.version,
    upstream: setup.real ? setup.real.baseUrl : setup.serverUrl,
    key,
    ...(setup.demo.agentId ? { agentId: setup.demo.agentId } : {}),
    ...(setup.demo.model ? { model: setup.demo.model } : {}),
    defaultModels: { transcription: DEFAULT_TRANSCRIPTION_MODEL, realtime: DEFAULT_REALTIME_MODEL, ocr: DEFAULT_OCR_MODEL },
    scopes: ALL_SCOPES,
  };
}
