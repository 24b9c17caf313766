/**
 * What `<agent-chat>` adds to finished replies: copy, thumbs up / down with a comment (reply-actions.ts), and
 * sources (sources-view.ts). Those modules are one chunk, loaded when the first reply is shown: until then a
 * reply shows its text without them. Kept here, in the first load: the copy of a code block (its button is
 * the markdown renderer's), which must write to the clipboard inside the click.
 */
import type { ReactiveController, TemplateResult } from 'lit';
import type { AgentChatStrings } from '../strings.js';
import type { TranscriptItem } from '../transcript.js';
import type { ReplyActions, ReplyActionsHost } from '../reply-actions.js';

type Reply = TranscriptItem & { kind: 'assistant' };
type Host = ReplyActionsHost['element'];

/**
 * Writes `text` to the clipboard: `navigator.clipboard` where the page may use it (a secure context), else
 * the browser's copy command on a hidden text box. Resolves false when neither worked.
 */
export async function copyText(root: ParentNode, text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API here (insecure context, old browser) or it was refused: the copy command, if it still works.
  }
  const box = document.createElement('textarea');
  box.value = text;
  box.setAttribute('readonly', '');
  box.style.cssText = 'position:fixed;opacity:0;inset:0 auto auto 0';
  root.append(box);
  try {
    box.select();
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    box.remove();
  }
}

/** See the module comment. */
export class ReplyExtrasController implements ReactiveController {
  readonly #host: Host;
  readonly #hooks: Omit<ReplyActionsHost, 'element' | 'copy'>;
  #actions: ReplyActions | null = null;
  #load: Promise<void> | null = null;

  constructor(host: Host, hooks: Omit<ReplyActionsHost, 'element' | 'copy'>) {
    this.#host = host;
    this.#hooks = hooks;
    host.addController(this);
  }

  hostUpdated(): void {
    this.#actions?.updated();
  }

  /** The text the reply shows: with its sources' numbered markers once the module is loaded. */
  text(reply: Reply): string {
    return this.#actions ? this.#actions.text(reply) : reply.text;
  }

  /** The copy and feedback buttons of a finished reply (nothing until the module is loaded; asking loads it). */
  actions(reply: Reply, t: AgentChatStrings): TemplateResult | null {
    return this.#loaded()?.renderActions(reply, t) ?? null;
  }

  /** The reply's Sources list, if it has sources. */
  sources(reply: Reply, t: AgentChatStrings): TemplateResult | null {
    return this.#loaded()?.renderSources(reply, t) ?? null;
  }

  /** The transcript's click listener: a code block's copy button copies its code. */
  readonly onClick = (event: MouseEvent): void => {
    const button = event.composedPath().find((node): node is HTMLButtonElement => node instanceof HTMLButtonElement);
    if (!button?.classList.contains('parley-copy-code') || !button.closest('.markdown')) return;
    const code = button.closest('pre')?.querySelector('code')?.textContent ?? '';
    void this.#copy(code.replace(/\n$/, ''), button);
  };

  readonly #copy = async (text: string, button: HTMLElement | null): Promise<boolean> => {
    const done = await copyText(this.#host.renderRoot, text);
    this.#hooks.announce(done ? this.#hooks.words().copied : this.#hooks.words().copyFailed);
    button?.setAttribute('data-copied', done ? 'true' : 'false');
    return done;
  };

  #loaded(): ReplyActions | null {
    this.#load ??= import('../reply-actions.js').then(({ ReplyActions }) => {
      this.#actions = new ReplyActions({ ...this.#hooks, element: this.#host, copy: (text) => this.#copy(text, null) });
      this.#host.requestUpdate();
    }, () => {
      this.#load = null; // the next render tries again
    });
    return this.#actions;
  }
}
