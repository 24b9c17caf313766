/**
 * Keeps `<agent-chat>`'s transcript scrolled to its newest message while the reader is at the bottom:
 * scrolling up lets go, sending or switching conversation sticks again. Layout that changes without an
 * update (messages sized once they are rendered, an error box or a notice taking room, the panel resized)
 * keeps it at the bottom too: only the reader scrolling up lets go.
 *
 * Telling the reader's scrolling from the layout's: messages off screen are not laid out
 * (`content-visibility: auto`) and take their real sizes as they come into view, and the browser's scroll
 * anchoring then moves `scrollTop` by itself, often upwards. So a wheel or key scrolling up, or a scroll
 * up while a pointer or finger is down on the transcript, is the reader's at once; any other scroll up
 * (assistive technology, script) counts only when the content kept its height since the last look and the
 * end is not settling (a scroll to the end being checked over the next frames: late sizes can move
 * `scrollTop` up and then restore the height between two scroll events); one that came with a change of
 * height, or while settling, is answered by scrolling to the end again.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How close to the bottom (px) still counts as reading the newest message. */
const STICKY_DISTANCE = 48;
/** Frames a scroll to the end is checked again, while late layout (content-visibility sizing) moves the end. */
const SETTLE_FRAMES = 3;

/** Keys that scroll the transcript up. */
const UP_KEYS = new Set(['ArrowUp', 'PageUp', 'Home']);

/** Whether `target` takes typing (its keys are not the transcript's). */
function isTextField(target: EventTarget | undefined): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || target.matches('input, textarea, select'));
}

/** See the module comment. */
export class TranscriptScrollController implements ReactiveController {
  /** Whether each update scrolls the transcript to its end. */
  stickToBottom = true;

  readonly #transcript: () => HTMLElement | null;
  #frame = 0;
  /** A scroll to the end is pending or being checked over the next frames ({@link #scrollToEnd}). */
  #settling = false;
  /** scrollTop the controller last set: a scroll event above it is the reader's. */
  #setTop = 0;
  /** The transcript's scrollHeight at the last scroll event or scroll to the end. */
  #height = 0;
  /** The newest message, observed for late growth ({@link #observeNewest}). */
  #newest: HTMLElement | null = null;
  /** A pointer or finger is down on the transcript (dragging its scrollbar, swiping). */
  #held = false;
  #observed: HTMLElement | null = null;
  #resize: ResizeObserver | null = null;

  /** `transcript`: the scrolling element, when it is rendered. */
  constructor(host: ReactiveControllerHost, transcript: () => HTMLElement | null) {
    this.#transcript = transcript;
    host.addController(this);
  }

  /** The transcript's `scroll` listener: at the bottom it sticks; the reader scrolling up lets go (see the module comment). */
  readonly onScroll = (): void => {
    const el = this.#transcript();
    if (!el) return;
    const height = el.scrollHeight;
    const resized = height !== this.#height;
    this.#height = height;
    if (height - el.scrollTop - el.clientHeight < STICKY_DISTANCE) this.stickToBottom = true;
    else if (el.scrollTop < this.#setTop - 1 && (this.#held || (!resized && !this.#settling))) this.stickToBottom = false;
    else if (this.stickToBottom && (resized || this.#settling)) this.#scrollToEnd(SETTLE_FRAMES);
    this.#setTop = Math.min(this.#setTop, el.scrollTop);
  };

  /** The reader asks to scroll up (wheel, keys) where there is room to: let go before the scroll happens. */
  readonly #onIntent = (event: Event): void => {
    const el = this.#transcript();
    if (!el || el.scrollTop <= 0) return;
    const up = event instanceof WheelEvent
      ? event.deltaY < 0
      : event instanceof KeyboardEvent && !event.defaultPrevented && !isTextField(event.composedPath()[0])
        && (UP_KEYS.has(event.key) || (event.key === ' ' && event.shiftKey));
    if (up) this.stickToBottom = false;
  };

  readonly #onHold = (event: Event): void => {
    this.#held = event.type === 'pointerdown' || event.type === 'touchstart';
  };

  hostUpdated(): void {
    const el = this.#transcript();
    this.#observe(el);
    let newest = el?.lastElementChild ?? null;
    while (newest && !newest.classList.contains('message')) newest = newest.previousElementSibling;
    this.#observeNewest(newest as HTMLElement | null);
    this.#scrollToEnd(SETTLE_FRAMES);
  }

  hostDisconnected(): void {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#settling = false;
    this.#resize?.disconnect();
    this.#resize = null;
    this.#newest = null;
    this.#listen(this.#observed, false);
    this.#observed = null;
  }

  /**
   * Once per frame (a fast stream does not force a layout per delta), then again while the end still moves;
   * settling until a frame after the end last held still.
   */
  #scrollToEnd(settleFrames: number): void {
    if (!this.stickToBottom || this.#frame) return;
    this.#settling = true;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      const el = this.#transcript();
      if (!el || !this.stickToBottom) {
        this.#settling = false;
        return;
      }
      const height = el.scrollHeight;
      el.scrollTop = height;
      this.#setTop = el.scrollTop;
      this.#height = height;
      requestAnimationFrame(() => {
        if (this.#frame) return; // scrolled to the end again meanwhile: that one settles
        if (settleFrames > 0 && (el.scrollHeight !== height || el.scrollHeight - el.scrollTop - el.clientHeight > 1)) {
          this.#scrollToEnd(settleFrames - 1);
        } else {
          this.#settling = false;
        }
      });
    });
  }

  /**
   * The newest message growing after the update that showed it (its markdown, sources or buttons arriving with
   * code loaded on first use, frames later) keeps the end in view while sticking, like the box resizing.
   */
  #observeNewest(message: HTMLElement | null): void {
    if (message === this.#newest || typeof ResizeObserver === 'undefined') return;
    this.#resize ??= new ResizeObserver(() => this.#scrollToEnd(SETTLE_FRAMES));
    if (this.#newest) this.#resize.unobserve(this.#newest);
    if (message) this.#resize.observe(message);
    this.#newest = message;
  }

  /** The transcript's box resizing (an error box, a notice, the panel) keeps the end in view. */
  #observe(el: HTMLElement | null): void {
    if (el === this.#observed) return;
    this.#listen(this.#observed, false);
    this.#listen(el, true);
    if (typeof ResizeObserver !== 'undefined') {
      this.#resize ??= new ResizeObserver(() => this.#scrollToEnd(SETTLE_FRAMES));
      if (this.#observed) this.#resize.unobserve(this.#observed);
      if (el) this.#resize.observe(el);
    }
    this.#observed = el;
    this.#held = false;
    // A new transcript (back from the conversation list) starts at the top: what was set on the old one says nothing.
    this.#setTop = 0;
    this.#height = 0;
  }

  #listen(el: HTMLElement | null, on: boolean): void {
    if (!el) return;
    const method = on ? 'addEventListener' : 'removeEventListener';
    const passive = { passive: true } as const;
    el[method]('wheel', this.#onIntent, passive);
    el[method]('keydown', this.#onIntent);
    for (const type of ['pointerdown', 'pointerup', 'pointercancel', 'touchstart', 'touchend', 'touchcancel']) el[method](type, this.#onHold, passive);
  }
}
