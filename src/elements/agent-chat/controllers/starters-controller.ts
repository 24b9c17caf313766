/**
 * The suggested first messages of `<agent-chat>`: the element's `starters`, else the agent's own (the
 * strings of its `metadata.starters`, read through the relay once per agent while a chat is empty).
 * Shown as buttons on an empty chat, in a labelled group; a press sends that message.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { ParleyElement } from '../../internal/parley-element.js';
import { sharedClient } from '../../internal/shared-client.js';
import type { ShownStrings } from '../strings.js';

/** At most this many starters are shown (the first ones). */
export const MAX_STARTERS = 6;

/** What the controller reads of `<agent-chat>`. */
export interface StartersHost extends ParleyElement {
  starters: string[];
  relayUrl: string;
  agentId: string;
  send(text: string): Promise<void>;
}

/** The agent's starters, by relay and agent (one request per page). */
const agentStarters = new Map<string, Promise<string[]>>();

/** The usable strings of a list (trimmed, non-empty, once each), at most MAX_STARTERS. */
export function cleanStarters(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const item of list) {
    const text = typeof item === 'string' ? item.trim() : '';
    if (text && !out.includes(text)) out.push(text);
  }
  return out.slice(0, MAX_STARTERS);
}

/** The `starters` attribute: a JSON array of strings, or messages separated by `|`. */
export function parseStarters(value: string | null): string[] {
  const text = value?.trim() ?? '';
  if (text.startsWith('[')) {
    try {
      return cleanStarters(JSON.parse(text));
    } catch {
      // not JSON after all: a `|` list
    }
  }
  return cleanStarters(text.split('|'));
}

export class StartersController {
  readonly #host: StartersHost;
  #agent: { key: string; starters: string[] } | null = null;

  constructor(host: StartersHost) {
    this.#host = host;
  }

  /** The starters to show: the element's, else the agent's once read. */
  get list(): string[] {
    const own = cleanStarters(this.#host.starters);
    return own.length ? own : this.#agent?.starters ?? [];
  }

  /** The buttons (`starters` part, each a `starter`), on an empty chat; reads the agent's the first time. */
  render(t: ShownStrings): TemplateResult | typeof nothing {
    this.#readAgent();
    const list = this.list;
    if (!list.length) return nothing;
    return html`<div part="starters" class="starters" role="group" aria-label=${t.startersLabel}>
      ${list.map((text) => html`<button part="starter" class="starter" type="button" dir="auto" @click=${() => void this.#host.send(text)}>${text}</button>`)}
    </div>`;
  }

  #readAgent(): void {
    const { relayUrl, agentId } = this.#host;
    if (!relayUrl || !agentId || cleanStarters(this.#host.starters).length) return;
    const key = `${relayUrl}\u0000${agentId}`;
    if (this.#agent?.key === key) return;
    this.#agent = { key, starters: [] };
    let read = agentStarters.get(key);
    if (!read) {
      read = sharedClient(relayUrl).then((client) => client.agents.get(agentId)).then((agent) => cleanStarters(agent.metadata?.starters), () => []);
      agentStarters.set(key, read);
    }
    void read.then((starters) => {
      if (this.#agent?.key !== key || !starters.length) return;
      this.#agent = { key, starters };
      this.#host.requestUpdate();
    });
  }
}
