/**
 * What `<agent-chat>` adds to finished replies: copy, thumbs up / down with a comment (reply-actions.ts), and
 * sources (sources-view.ts). Those modules are one chunk, loaded when the first reply is shown: until then a
 * reply shows its text without them (and a code block's copy button, the markdown renderer's, waits for them).
 */
import type { ReactiveController, TemplateResult } from 'lit';
import type { ShownStrings } from '../strings.js';
import type { TranscriptItem } from '../transcript.js';
import type { ReplyActions, ReplyActionsHost } from '../reply-actions.js';

type Reply = TranscriptItem & { kind: 'assistant' };
type Module = typeof import('../reply-actions.js');

/**
 * The module once loaded by any chat of the page: a chat made after that builds its actions before its first
 * render, so a long history is rendered (and styled) once, not again when the module arrives.
 */
let loaded: Module | null = null;
let loading: Promise<Module> | null = null;
type Host = ReplyActionsHost['element'];
type Hooks = Omit<ReplyActionsHost, 'element'>;

/** See the module comment. */
export class ReplyExtrasController implements ReactiveController {
  readonly #host: Host;
  readonly #hooks: Hooks;
  #actions: ReplyActions | null = null;
  #load: Promise<void> | null = null;

  constructor(host: Host, hooks: Hooks) {
    this.#host = host;
    this.#hooks = hooks;
    host.addController(this);
  }

  hostConnected(): void {
    if (loaded) this.#build(loaded);
  }

  hostUpdated(): void {
    this.#actions?.updated();
  }

  /** The text the reply shows: with its sources' numbered markers once the module is loaded. */
  text(reply: Reply): string {
    return this.#actions ? this.#actions.text(reply) : reply.text;
  }

  /** The copy and feedback buttons of a finished reply (nothing until the module is loaded; asking loads it). */
  actions(reply: Reply, t: ShownStrings): TemplateResult | null {
    return this.#loaded()?.renderActions(reply, t) ?? null;
  }

  /** The reply's Sources list, if it has sources. */
  sources(reply: Reply, t: ShownStrings): TemplateResult | null {
    return this.#loaded()?.renderSources(reply, t) ?? null;
  }

  /** The transcript's click listener: a code block's copy button copies its code. */
  readonly onClick = (event: MouseEvent): void => {
    this.#actions?.onClick(event);
  };

  #loaded(): ReplyActions | null {
    if (this.#actions) return this.#actions;
    if (loaded) return this.#build(loaded);
    this.#load ??= (loading ??= import('../reply-actions.js')).then((module) => {
      loaded = module;
      this.#build(module);
      this.#host.requestUpdate();
    }, () => {
      loading = null; // the next render tries again
      this.#load = null;
    });
    return null;
  }

  #build({ ReplyActions }: Module): ReplyActions {
    this.#actions ??= new ReplyActions({ ...this.#hooks, element: this.#host });
    return this.#actions;
  }
}
