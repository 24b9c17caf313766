/**
 * The suggested first messages of an empty `<agent-chat>` (StartersController): the element's `starters`,
 * else the agent's own (the strings of its `metadata.starters`, read through the relay once per agent while a
 * chat is empty), as buttons in a labelled group; a press sends that message. Loaded with `import()` the
 * first time an empty chat has starters to show, or an agent to read them from; its styles come with it.
 */
import { css, html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { sharedClient } from '../internal/shared-client.js';
import type { ParleyElement } from '../internal/parley-element.js';
import type { ShownStrings } from './strings.js';

/** What the starters read of `<agent-chat>`. */
export interface StartersHost extends ParleyElement {
  starters: string[];
  relayUrl: string;
  agentId: string;
  send(text: string): Promise<void>;
}

/** The agent's starters, by relay and agent (one request per page). */
const agentStarters = new Map<string, Promise<string[]>>();

export class StartersView {
  readonly #host: StartersHost;
  /** The usable strings of a list (starters-controller.ts' `cleanStarters`, passed in: it is in the first load). */
  readonly #clean: (list: unknown) => string[];
  #agent: { key: string; starters: string[] } | null = null;

  constructor(host: StartersHost, clean: (list: unknown) => string[]) {
    this.#host = host;
    this.#clean = clean;
    // The buttons' styles join the element's own, in its shadow root.
    const root = host.renderRoot as ShadowRoot;
    const sheet = startersStyles.styleSheet;
    if (sheet && Array.isArray(root.adoptedStyleSheets)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }

  /** The starters to show: the element's, else the agent's once read. */
  get list(): string[] {
    const own = this.#clean(this.#host.starters);
    return own.length ? own : this.#agent?.starters ?? [];
  }

  /** The buttons (`starters` part, each a `starter`); reads the agent's the first time. */
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
    if (!relayUrl || !agentId || this.#clean(this.#host.starters).length) return;
    const key = `${relayUrl}\u0000${agentId}`;
    if (this.#agent?.key === key) return;
    this.#agent = { key, starters: [] };
    let read = agentStarters.get(key);
    if (!read) {
      read = sharedClient(relayUrl).then((client) => client.agents.get(agentId)).then((agent) => this.#clean(agent.metadata?.starters), () => []);
      agentStarters.set(key, read);
    }
    void read.then((starters) => {
      if (this.#agent?.key !== key || !starters.length) return;
      this.#agent = { key, starters };
      this.#host.requestUpdate();
    });
  }
}

/** The buttons' styles: they come with this module, not with the element's first load. */
const startersStyles = css`
  .starters {
    display: flex;
    flex-wrap: wrap;
    justify-content: center;
    gap: 0.4rem;
  }
`;
