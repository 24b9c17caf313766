/**
 * Keeps `<agent-chat>`'s transcript scrolled to its newest message while the reader is at the bottom:
 * scrolling up lets go, sending or switching conversation sticks again. Layout that changes without an
 * update (messages sized once they are rendered, an error box or a notice taking room, the panel resized)
 * keeps it at the bottom too: only the reader scrolling up lets go.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How close to the bottom (px) still counts as reading the newest message. */
const STICKY_DISTANCE = 48;
/** Frames a scroll to the end is checked again, while late layout (content-visibility sizing) moves the end. */
const SETTLE_FRAMES = 3;

/** See the module comment. */
export class TranscriptScrollController implements ReactiveController {
  /** Whether each update scrolls the transcript to its end. */
  stickToBottom = true;

  readonly #transcript: () => HTMLElement | null;
  #frame = 0;
  /** scrollTop the controller last set: a scroll event above it is the reader's. */
  #setTop = 0;
  #observed: HTMLElement | null = null;
  #resize: ResizeObserver | null = null;

  /** `transcript`: the scrolling element, when it is rendered. */
  constructor(host: ReactiveControllerHost, transcript: () => HTMLElement | null) {
    this.#transcript = transcript;
    host.addController(this);
  }

  /** The transcript's `scroll` listener: at the bottom it sticks; the reader scrolling up lets go. */
  readonly onScroll = (): void => {
    const el = this.#transcript();
    if (!el) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < STICKY_DISTANCE) this.stickToBottom = true;
    else if (el.scrollTop < this.#setTop - 1) this.stickToBottom = false;
    this.#setTop = Math.min(this.#setTop, el.scrollTop);
  };

  hostUpdated(): void {
    this.#observe(this.#transcript());
    this.#scrollToEnd(SETTLE_FRAMES);
  }

  hostDisconnected(): void {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#resize?.disconnect();
    this.#resize = null;
    this.#observed = null;
  }

  /** Once per frame (a fast stream does not force a layout per delta), then again while the end still moves. */
  #scrollToEnd(settleFrames: number): void {
    if (!this.stickToBottom || this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      const el = this.#transcript();
      if (!el || !this.stickToBottom) return;
      const height = el.scrollHeight;
      el.scrollTop = height;
      this.#setTop = el.scrollTop;
      if (settleFrames > 0) {
        requestAnimationFrame(() => {
          if (el.scrollHeight !== height || el.scrollHeight - el.scrollTop - el.clientHeight > 1) this.#scrollToEnd(settleFrames - 1);
        });
      }
    });
  }

  /** The transcript's box resizing (an error box, a notice, the panel) keeps the end in view. */
  #observe(el: HTMLElement | null): void {
    if (el === this.#observed || typeof ResizeObserver === 'undefined') return;
    this.#resize ??= new ResizeObserver(() => this.#scrollToEnd(SETTLE_FRAMES));
    if (this.#observed) this.#resize.unobserve(this.#observed);
    this.#observed = el;
    if (el) this.#resize.observe(el);
  }
}
