/**
 * Keeps `<agent-chat>`'s transcript scrolled to its newest message while the reader is at the bottom:
 * scrolling up lets go, sending or switching conversation sticks again.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How close to the bottom (px) still counts as reading the newest message. */
const STICKY_DISTANCE = 48;

/** See the module comment. */
export class TranscriptScrollController implements ReactiveController {
  /** Whether each update scrolls the transcript to its end. */
  stickToBottom = true;

  readonly #transcript: () => HTMLElement | null;
  #frame = 0;

  /** `transcript`: the scrolling element, when it is rendered. */
  constructor(host: ReactiveControllerHost, transcript: () => HTMLElement | null) {
    this.#transcript = transcript;
    host.addController(this);
  }

  /** The transcript's `scroll` listener: at the bottom it sticks, anywhere else it lets go. */
  readonly onScroll = (): void => {
    const el = this.#transcript();
    if (el) this.stickToBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICKY_DISTANCE;
  };

  hostUpdated(): void {
    if (!this.stickToBottom || this.#frame) return;
    // Once per frame, so a fast stream does not force a layout per delta.
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      const el = this.#transcript();
      if (el && this.stickToBottom) el.scrollTop = el.scrollHeight;
    });
  }

  hostDisconnected(): void {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
  }
}
