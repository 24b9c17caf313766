/**
 * The suggested first messages of `<agent-chat>`: the element's `starters`, else the agent's own (the
 * strings of its `metadata.starters`, read through the relay once per agent while a chat is empty).
 * Shown as buttons on an empty chat, in a labelled group; a press sends that message. The buttons and the
 * agent's reading are starters-view.ts, loaded the first time an empty chat has starters or an agent: the
 * element's updateComplete waits for it.
 */
import { nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type { ShownStrings } from '../strings.js';
import type { StartersHost, StartersView } from '../starters-view.js';

export type { StartersHost } from '../starters-view.js';

/** At most this many starters are shown (the first ones). */
export const MAX_STARTERS = 6;


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
  #view: StartersView | null = null;
  #loading: Promise<unknown> | null = null;

  constructor(host: StartersHost) {
    this.#host = host;
  }

  /** While the view loads: settled once it has rendered (the element's updateComplete waits). */
  get loading(): Promise<unknown> | null {
    return this.#view ? null : this.#loading;
  }

  /** The buttons (`starters` part, each a `starter`), on an empty chat (nothing while their module loads). */
  render(t: ShownStrings): TemplateResult | typeof nothing {
    if (this.#view) return this.#view.render(t);
    const host = this.#host;
    if (!cleanStarters(host.starters).length && !(host.relayUrl && host.agentId)) return nothing;
    this.#loading ??= import('../starters-view.js').then(({ StartersView }) => {
      this.#view = new StartersView(host, cleanStarters);
      host.requestUpdate();
      return host.updateComplete;
    }, () => {
      this.#loading = null; // the next render tries again
    });
    return nothing;
  }
}
