import { html, nothing } from 'lit';
import type { PropertyValues, TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { repeat } from 'lit/directives/repeat.js';
import type { CachedEntry, ChatSessionApi, ClientTool, PlatformErrorShape, VoiceInputOptions } from '../../client/contracts.js';
import { contentText } from '../../client/message-content.js';
import type { Tool } from '../../client/types.js';
import { ParleyElement } from '../internal/parley-element.js';
import { markdown, markdownLoading, markdownPlainText } from '../internal/markdown-directive.js';
import { parseHostList, spoofedLinkHost } from '../internal/links.js';
import { resolveAgentChatStrings } from './strings.js';
import type { AgentChatStrings } from './strings.js';
import { agentChatStyles } from './agent-chat.styles.js';
import { nextAnnouncement } from '../internal/announce.js';
import { originRefusalOf } from '../internal/origin-refusal.js';
import { ChatSessionController } from './controllers/chat-session-controller.js';
import { TranscriptScrollController } from './controllers/transcript-scroll-controller.js';
import { TranscriptPlaceholdersController } from './controllers/transcript-placeholders-controller.js';
import { VoiceInController } from './controllers/voice-in-controller.js';
import { VoiceOutController } from './controllers/voice-out-controller.js';
import { lastReply } from './transcript.js';
import type { TranscriptItem } from './transcript.js';
import type { TranscriptSearch } from './transcript-search.js';

export type { ParleyHandsFreeChangedDetail, ParleyVoiceFinalDetail, ParleyVoiceStartDetail } from './voice-events.js';

/** Longest text read out by the live region for one reply. */
const ANNOUNCE_LIMIT = 600;
/**
 * Screens on which the open launcher panel covers the page as a modal dialog (focus kept inside, the page
 * behind inert); on wider ones it is a non-modal panel beside the page.
 */
const SMALL_SCREEN = '(max-width: 600px), (max-height: 480px)';
/** The properties a session is created from: a change creates a new one. */
const SESSION_OPTIONS = ['relayUrl', 'agentId', 'model', 'agentVersion', 'handoffExecution', 'instructions', 'toolDefinitions', 'resume'];

/**
 * A chat with an agent or a model through a Parley relay: streamed markdown replies, stop, retry,
 * regenerate, edit-and-resend, a conversation list kept in IndexedDB, function calls, client tools and
 * handoffs. Inline by default; `mode="launcher"` shows a floating button that opens the chat in a panel.
 *
 * The element holds view state only: a `ChatSession` (from the client layer) does the talking and
 * the storing. Elements on one page share one client per relay URL.
 *
 * @tagname agent-chat
 * @summary Chat with a Parley agent or model, inline or from a floating launcher.
 *
 * With `voice-input`, a microphone button beside the send button takes a spoken message (live words in
 * the message box, sent when the speaker stops), and a "Hands-free" toggle runs whole spoken turns:
 * listen, send, speak the reply, listen again; talking over the reply interrupts it. The microphone
 * and transcription code is loaded on first use.
 *
 * @slot header - Replaces the title in the header (the header's buttons stay).
 * @slot empty - Shown while the conversation has no messages.
 * @slot launcher-icon - Icon inside the launcher button (`mode="launcher"`).
 *
 * @csspart base - The wrapper of everything.
 * @csspart launcher - The floating button that opens and closes the panel (`mode="launcher"`).
 * @csspart panel - The chat itself (the floating panel in launcher mode).
 * @csspart header - The header bar.
 * @csspart title - The heading in the header.
 * @csspart history-button - Button that shows the conversation list.
 * @csspart new-button - Button that starts a new conversation.
 * @csspart close-button - Button that closes the launcher panel.
 * @csspart conversation-list - The list of saved conversations.
 * @csspart conversation - One row of the conversation list.
 * @csspart conversation-button - The button that resumes a conversation.
 * @csspart delete-button - The button that deletes a conversation.
 * @csspart transcript - The scrolling list of messages.
 * @csspart empty - The default empty state.
 * @csspart search-button - Button that opens the search over the conversation's messages (`aria-expanded`).
 * @csspart search - The search bar (field, state line, previous / next / close buttons).
 * @csspart search-input - The search field: Enter goes to the next match, Shift+Enter to the previous one, Escape closes.
 * @csspart search-status - The search's state line ("3 of 12 matches"), a polite live region.
 * @csspart search-previous-button - Goes to the previous match.
 * @csspart search-next-button - Goes to the next match.
 * @csspart search-close-button - Closes the search.
 * @csspart message - A message (user or assistant); also `message-user` / `message-assistant`. Every message of
 *   the conversation is in the transcript; off-screen ones are not laid out (`content-visibility: auto`), and
 *   replies older than the newest 40 messages show their text as it is (class `placeholder` on the bubble)
 *   until they come within a screen of the view or the search opens. The
 *   current search match's message has the class `search-current`; the matches are styled with
 *   `::highlight(parley-search)` and `::highlight(parley-search-current)` (CSS Custom Highlight API).
 * @csspart message-user - A message of the user.
 * @csspart message-assistant - A message of the assistant.
 * @csspart bubble - The bubble around a message's text.
 * @csspart message-actions - The buttons under a message.
 * @csspart edit-button - Edits a user message and sends it again.
 * @csspart regenerate-button - Asks again for the last reply.
 * @csspart read-aloud-button - Reads a finished reply aloud (and stops reading it).
 * @csspart interrupted - The note under a reply that was cut off.
 * @csspart tool-call - A function call or tool execution (collapsible).
 * @csspart handoff - The divider shown when another agent takes over.
 * @csspart thinking - Shown while waiting for the first words of a reply.
 * @csspart notice - A notice from the session (e.g. old conversations removed).
 * @csspart offline-notice - The notice that a message waits for the connection (with `notice`).
 * @csspart cancel-waiting-button - The offline notice's button that drops the waiting message.
 * @csspart waiting - The note under a user message that waits for the connection.
 * @csspart error - The error message shown in words.
 * @csspart retry-button - Sends the failed turn again (after a voice input error: listens again).
 * @csspart composer - The form with the message box.
 * @csspart input - The message box.
 * @csspart send-button - The send button.
 * @csspart stop-button - Stops the reply being streamed.
 * @csspart mic-button - The microphone button (`voice-input`): starts listening, and while listening (`aria-pressed="true"`) stops and uses what was heard. A ring around it follows the input level.
 * @csspart voice-bar - The row with the hands-free toggle and the voice state line (`voice-input`).
 * @csspart hands-free-button - The hands-free toggle (`aria-pressed`).
 * @csspart voice-status - The voice state line ("Listening…", "Thinking…", "Speaking… (talk to interrupt)"), a polite live region.
 * @csspart link-dialog - The dialog that asks before opening a link that shows another host than it opens.
 *
 * @cssproperty [--parley-font-family=system-ui] - Font of the chat.
 * @cssproperty [--parley-font-family-code=ui-monospace] - Font of code.
 * @cssproperty [--parley-font-size=15px] - Base font size.
 * @cssproperty [--parley-color-text=#1d1d1f] - Text colour.
 * @cssproperty [--parley-color-muted=#545458] - Secondary text colour.
 * @cssproperty [--parley-color-background=#ffffff] - Background of the panel.
 * @cssproperty [--parley-color-surface=#f4f4f6] - Background of hovered rows and notices.
 * @cssproperty [--parley-color-border=#d2d2d7] - Borders.
 * @cssproperty [--parley-color-accent=#0b57d0] - Buttons, links, the launcher.
 * @cssproperty [--parley-color-on-accent=#ffffff] - Text on the accent colour.
 * @cssproperty [--parley-color-user-bubble=var(--parley-color-accent)] - Background of the user's messages.
 * @cssproperty [--parley-color-on-user-bubble=var(--parley-color-on-accent)] - Text of the user's messages.
 * @cssproperty [--parley-color-assistant-bubble=var(--parley-color-surface)] - Background of replies.
 * @cssproperty [--parley-color-error=#b3261e] - Error text.
 * @cssproperty [--parley-radius=12px] - Corner radius of the panel and bubbles.
 * @cssproperty [--parley-gap=0.75rem] - Spacing between messages and around the panel's content.
 * @cssproperty [--parley-focus-ring=2px solid var(--parley-color-accent)] - Outline of focused controls.
 * @cssproperty [--parley-height=32rem] - Height of the inline chat.
 * @cssproperty [--parley-panel-width=min(24rem, 100vw - 2.5rem)] - Width of the launcher panel.
 * @cssproperty [--parley-panel-height=min(36rem, 100vh - 7rem)] - Height of the launcher panel.
 * @cssproperty [--parley-launcher-size=3.5rem] - Size of the launcher button.
 * @cssproperty [--parley-launcher-inset=1.25rem] - Distance of the launcher from the viewport's corner.
 * @cssproperty [--parley-z-index=2147483000] - Stacking of the launcher and its panel.
 *
 * @fires {CustomEvent<ParleyMessageSentDetail>} parley-message-sent - The user sent a message (`detail.text`, `detail.kind`: `send` or `edit`).
 * @fires {CustomEvent<ParleyReplyFinishedDetail>} parley-reply-finished - A reply finished streaming (`detail.entryId`, `detail.text`).
 * @fires {CustomEvent<ParleyErrorDetail>} parley-error - A turn or request failed (`detail.error`: status, type, code, message, retryAfter).
 * @fires {CustomEvent<ParleyConversationChangedDetail>} parley-conversation-changed - The conversation shown changed (`detail.conversationId`).
 * @fires {CustomEvent<ParleyOpenChangedDetail>} parley-open-changed - The launcher panel opened or closed (`detail.open`).
 * @fires {CustomEvent<ParleySpeechStartDetail>} parley-speech-start - A reply started being read aloud (`detail.text`: its markdown).
 * @fires {CustomEvent<ParleySpeechFirstAudioDetail>} parley-speech-first-audio - The first audio of a reply is scheduled (`detail.latencyMs`).
 * @fires {CustomEvent<ParleySpeechEndDetail>} parley-speech-end - Reading aloud ended or was stopped.
 * @fires {CustomEvent<ParleySpeechErrorDetail>} parley-speech-error - Reading aloud failed (`detail.error`).
 * @fires {CustomEvent<ParleyVoiceStartDetail>} parley-voice-start - The chat began listening for a spoken message (`detail.handsFree`).
 * @fires {CustomEvent<ParleyVoiceFinalDetail>} parley-voice-final - The final text of a spoken message (`detail.text`), before it is sent or left in the message box.
 * @fires {CustomEvent<ParleyHandsFreeChangedDetail>} parley-hands-free-changed - Hands-free turns were turned on or off (`detail.on`), also when an error or typing ended them.
 */
export class AgentChat extends ParleyElement {
  static override styles = [ParleyElement.styles, agentChatStyles];

  /** Base URL of the Parley relay, e.g. `/api` or `https://example.com/parley`. */
  @property({ attribute: 'relay-url' }) relayUrl = '';

  /** Id of the agent to talk to (takes precedence over `model`). */
  @property({ attribute: 'agent-id' }) agentId = '';

  /** Model to talk to when no agent is given. */
  @property() model = '';

  /** Version number or alias of the agent (default: its current version). */
  @property({ attribute: 'agent-version' }) agentVersion = '';

  /** `inline` (default) shows the chat in place; `launcher` shows a floating button that opens it in a panel. */
  @property({ reflect: true }) mode: 'inline' | 'launcher' = 'inline';

  /** Whether the launcher panel is open (`mode="launcher"` only). */
  @property({ type: Boolean, reflect: true }) open = false;

  /** Hosts whose images replies may show, separated by spaces (`"cdn.example.com img.example.com"`). Other images are not loaded. */
  @property({ attribute: 'allow-image-hosts' }) allowImageHosts = '';

  /** Who runs handoffs between agents: `server` (default) or `client`. */
  @property({ attribute: 'handoff-execution' }) handoffExecution: 'server' | 'client' | '' = '';

  /** Instructions for a model conversation (ignored with `agent-id`: an agent carries its own). */
  @property() instructions = '';

  /**
   * Which conversation to show when the element starts: `latest` (default) reopens the most recent
   * conversation with this agent or model from the page's history, so a reload lands where the visitor
   * was; `none` starts a new one.
   */
  @property() resume: 'latest' | 'none' = 'latest';

  /** Heading of the chat (default: the name of the agent speaking, else "Chat"). */
  @property() heading = '';

  /**
   * Functions the page runs when the agent calls a function of that name; their results go back to the
   * agent as `function.result`. Changes take effect on the next call.
   */
  @property({ attribute: false }) tools: Record<string, ClientTool> | null = null;

  /** Definitions of the page's `tools`, sent when starting a model conversation (an agent carries its own). */
  @property({ attribute: false }) toolDefinitions: Tool[] | null = null;

  /** A chat session to use instead of creating one from the attributes (tests, advanced hosts). The host disposes it. */
  @property({ attribute: false }) session: ChatSessionApi | null = null;

  /** Overrides of the element's words (see `AgentChatStrings`), for translation. */
  @property({ attribute: false }) strings: Partial<AgentChatStrings> | null = null;

  /**
   * Speaks replies aloud as they stream, sentence by sentence (through the relay's `/v1/audio/speech`).
   * Typing or sending stops the voice at once. Every finished reply also has a "Read aloud" button.
   */
  @property({ type: Boolean, attribute: 'speak-replies' }) speakReplies = false;

  /** Voice id or slug for reading replies aloud (default: the platform's). */
  @property() voice = '';

  /**
   * Shows a microphone button beside the send button and the hands-free toggle: the user says a message
   * instead of typing it (through the relay's realtime transcription). Escape stops listening.
   */
  @property({ type: Boolean, attribute: 'voice-input' }) voiceInput = false;

  /**
   * Whether a spoken message is sent as soon as the speaker stops (default). `voice-autosend="false"`
   * leaves the words in the message box for editing instead.
   */
  @property({
    attribute: 'voice-autosend',
    converter: { fromAttribute: (value) => value !== 'false' },
  })
  voiceAutosend = true;

  /**
   * Hands-free turns: listen, send what was said, speak the reply, listen again, until turned off.
   * Talking over the reply silences it and becomes the next message (barge-in). Typing, Stop, Escape or a
   * microphone error turns it off. Shows the voice controls as `voice-input` does.
   */
  @property({ type: Boolean, reflect: true, attribute: 'hands-free' }) handsFree = false;

  /**
   * Microphone and transcription settings of voice input: `deviceId`; `echoCancellation`,
   * `noiseSuppression`, `autoGainControl` (the browser's defaults, on: they keep a spoken reply from
   * interrupting itself through loudspeakers); `endOfUtteranceMs` (the silence that ends a message,
   * default 800); `model` (the realtime transcription model). Used from the next time it listens.
   */
  @property({ attribute: false }) voiceOptions: Pick<
    VoiceInputOptions, 'deviceId' | 'echoCancellation' | 'noiseSuppression' | 'autoGainControl' | 'endOfUtteranceMs' | 'model'
  > | null = null;

  @state() private draft = '';
  @state() private showList = false;
  /** Key of the user message being edited (see TranscriptItem). */
  @state() private editingKey: string | null = null;
  @state() private editDraft = '';
  @state() private searchOpen = false;
  /** The search's state line (see `searchStatusText`). */
  @state() private searchStatus = '';
  @state() private announcement = '';
  @state() private pendingLink: { href: string; shown: string; real: string } | null = null;
  #smallScreen: MediaQueryList | null = null;
  #warnedTools = false;
  /** The voice error last announced (each is announced once). */
  #announcedVoiceError: unknown = null;
  readonly #onScreenChange = () => this.syncPanelDialog();

  private readonly chat = new ChatSessionController(this, {
    listShown: () => this.showList,
    conversationChanged: () => {
      if (this.searchOpen) this.closeSearch(false);
      if (!this.busy) this.editingKey = null;
      this.transcriptScroll.stickToBottom = true;
    },
    replyFinished: (reply) => this.replyFinished(reply),
    replyGrew: () => {
      const reply = this.voiceOut.speaksReplies ? this.chat.streamingReply : null;
      if (reply) this.voiceOut.follow(reply.id, reply.text, false);
    },
    turnEnded: () => this.voiceIn.replyEnded(!!this.voiceOut.speaker?.speakingId),
    progress: (step, error) => this.announceProgress(step, error),
  });

  private readonly transcriptScroll = new TranscriptScrollController(this, () => this.renderRoot.querySelector('.transcript'));

  /** Which replies render in full and which as placeholders (every message is in the page at first paint). */
  private readonly placeholders = new TranscriptPlaceholdersController(this, {
    transcript: () => this.renderRoot.querySelector('.transcript'),
    hold: () => this.transcriptScroll.stickToBottom,
  });

  private readonly voiceOut = new VoiceOutController(this, {
    replyText: (id) => contentText((this.chat.state.entries.find((e) => e.id === id) as { content?: string } | undefined)?.content ?? ''),
    speakingChanged: (speaking) => this.voiceIn.replySpeaking(speaking),
  });

  private readonly voiceIn = new VoiceInController(this, {
    draft: () => this.draft,
    setDraft: (text) => {
      this.draft = text;
    },
    said: (text) => this.voiceSaid(text),
    bargeIn: () => this.stop(), // silences the voice, and stops the reply if it still streams
  });

  // Plain lookups rather than `@query`: the decorator would be one more shared chunk to load.
  private get input(): HTMLTextAreaElement | null {
    return this.renderRoot.querySelector('.composer textarea');
  }

  private get launcherButton(): HTMLButtonElement | null {
    return this.renderRoot.querySelector('.launcher');
  }

  private get linkDialog(): HTMLDialogElement | null {
    return this.renderRoot.querySelector('dialog.link-dialog');
  }

  /** The launcher panel (`mode="launcher"`: a `<dialog>`). */
  private get panelDialog(): HTMLDialogElement | null {
    return this.renderRoot.querySelector('dialog.panel');
  }

  /** The words as last resolved: once per update, not per use (finding the language walks up the page). */
  #words: AgentChatStrings | null = null;

  private get text(): AgentChatStrings {
    return (this.#words ??= resolveAgentChatStrings(this.strings, this));
  }

  private get busy(): boolean {
    return this.chat.busy;
  }

  private get hostList(): string[] {
    return parseHostList(this.allowImageHosts);
  }

  // ---------------------------------------------------------------- lifecycle (the controllers connect and clean up themselves)

  override connectedCallback(): void {
    super.connectedCallback();
    this.#smallScreen = typeof matchMedia === 'function' ? matchMedia(SMALL_SCREEN) : null;
    this.#smallScreen?.addEventListener('change', this.#onScreenChange);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // The page's highlight registry is shared: a chat taken out of the page takes its marks with it.
    if (this.searchOpen) this.closeSearch(false);
    this.#smallScreen?.removeEventListener('change', this.#onScreenChange);
    this.#smallScreen = null;
  }

  protected override willUpdate(changed: PropertyValues): void {
    // A new language, catalogue or `strings` requests an update (locale.ts): the words are resolved again.
    this.#words = null;
    // The transcript leaves the page for the list: back to it, only the newest replies render in full again.
    if (changed.has('showList') && this.showList) this.placeholders.reset();
    if (changed.has('session')) this.chat.sessionPropertyChanged(!!changed.get('session'));
    if (SESSION_OPTIONS.some((k) => changed.has(k))) this.chat.optionsChanged();
    // Before rendering, so the toggle and the state line render once, together.
    if (changed.has('handsFree')) this.handsFreeChanged(changed.get('handsFree') === undefined);
    if (['tools', 'toolDefinitions', 'model', 'agentId'].some((k) => changed.has(k))) this.warnToolsWithoutDefinitions();
    const voiceError = this.voiceIn.error;
    if (voiceError !== this.#announcedVoiceError) {
      this.#announcedVoiceError = voiceError;
      if (voiceError) this.announce(this.text.voiceErrorMessage(voiceError));
    }
  }

  /** Also waits, the first time replies are shown, for the markdown renderer (loaded then) to render them. */
  protected override async getUpdateComplete(): Promise<boolean> {
    const complete = await super.getUpdateComplete();
    await markdownLoading();
    return complete;
  }

  protected override updated(changed: PropertyValues): void {
    if (changed.has('open') || changed.has('mode')) this.syncPanelDialog();
    if (changed.has('open') && this.mode === 'launcher' && changed.get('open') !== undefined) {
      this.emit('parley-open-changed', { open: this.open });
      if (this.open) this.input?.focus();
      else if (this.shadowRoot?.activeElement || this.matches(':focus-within')) this.launcherButton?.focus();
    }
    if (changed.has('speakReplies') && this.speakReplies) void this.voiceOut.load();
    if (changed.has('pendingLink')) {
      if (this.pendingLink && !this.linkDialog?.open) this.linkDialog?.showModal();
      if (!this.pendingLink && this.linkDialog?.open) this.linkDialog.close();
    }
  }

  /**
   * A model conversation only calls the page's `tools` it was told about: without `toolDefinitions` the
   * model never calls them (an agent carries its own definitions). Said once in the console.
   */
  private warnToolsWithoutDefinitions(): void {
    const named = Object.keys(this.tools ?? {});
    if (this.#warnedTools || !named.length || this.agentId || !this.model || this.toolDefinitions?.length) return;
    this.#warnedTools = true;
    console.warn(`[parley] <agent-chat model="${this.model}"> has tools (${named.join(', ')}) but no toolDefinitions: a model conversation calls only the functions defined in toolDefinitions (an agent carries its own).`);
  }

  /**
   * Shows or hides the launcher's `<dialog>` to match `open`: modal on small screens (the browser keeps
   * focus inside and makes the page inert), non-modal beside the page on wide ones; a screen change while
   * open reopens it the other way.
   */
  private syncPanelDialog(): void {
    const dialog = this.panelDialog;
    if (!dialog) return;
    if (!this.open) {
      if (dialog.open) dialog.close();
      dialog.removeAttribute('aria-modal');
      return;
    }
    const modal = this.#smallScreen?.matches ?? false;
    if (dialog.open && dialog.matches(':modal') === modal) return;
    if (dialog.open) dialog.close();
    if (modal) dialog.showModal();
    else dialog.show();
    // Set here, not rendered: it follows the dialog, which changes after rendering.
    if (modal) dialog.setAttribute('aria-modal', 'true');
    else dialog.removeAttribute('aria-modal');
  }

  /** The panel's `<dialog>` closed by the browser (a second Escape on a modal panel): the chat follows. */
  private onPanelClose(): void {
    if (this.panelDialog?.open || !this.open) return; // reopened the other way (screen change), or already closed
    this.closePanel();
  }

  /** Sending, the first words of a reply, and failures, announced once each in the polite live region. */
  private announceProgress(step: 'sending' | 'writing' | 'failed', error?: PlatformErrorShape): void {
    const t = this.text;
    if (step === 'sending') this.announce(t.sendingAnnouncement);
    else if (step === 'writing') this.announce(t.writingAnnouncement);
    else if (error) {
      this.announce(t.errorMessage(error));
      // The transcript shrinks for the error box: keep its last messages in view.
      this.transcriptScroll.stickToBottom = true;
      // What went wrong in detail is for the site owner (the visitor sees the sentence above).
      if (error.message) console.warn('[parley] <agent-chat> request failed:', error);
    }
  }

  private replyFinished(reply: (TranscriptItem & { kind: 'assistant' }) | null): void {
    const text = reply?.text ?? '';
    if (text) {
      const spoken = markdownPlainText(text, ANNOUNCE_LIMIT + 1);
      this.announce(this.text.replyAnnouncement(spoken.length > ANNOUNCE_LIMIT ? `${spoken.slice(0, ANNOUNCE_LIMIT)}…` : spoken));
    }
    this.emit('parley-reply-finished', { conversationId: this.chat.state.conversationId, entryId: reply?.entry.id ?? null, text });
    if (this.voiceOut.speaksReplies && reply) this.voiceOut.follow(reply.entry.id, text, true);
  }

  /** An utterance ended with `text`: send it (hands-free, or `voice-autosend`) or leave it in the message box. */
  private voiceSaid(text: string): boolean {
    if ((!this.voiceAutosend && !this.handsFree) || !this.chat.session) {
      this.draft = text;
      this.updateComplete.then(() => this.input?.focus());
      return false;
    }
    this.draft = '';
    if (this.busy) this.stop(); // the user talked over a reply that was still streaming
    void this.send(text);
    return true;
  }

  private handsFreeChanged(initial: boolean): void {
    const on = this.handsFree && !!this.relayUrl;
    if (on) void this.voiceOut.load();
    else if (!this.speakReplies) this.voiceOut.silence();
    this.voiceIn.handsFreeChanged(on);
    if (!initial) this.emit('parley-hands-free-changed', { on: this.handsFree });
  }

  private toggleMic(): void {
    this.voiceOut.unlock(); // inside the click, so a spoken reply can start later (iOS)
    const listening = this.voiceIn.phase === 'listening';
    if (this.voiceIn.phase === 'speaking') this.stop(); // talking over the reply, by hand: the microphone is already open
    if (listening) this.voiceIn.finish();
    else this.voiceIn.listen();
  }

  private announce(message: string): void {
    // Same words twice would not be read again: make the second differ invisibly.
    this.announcement = nextAnnouncement(this.announcement, message);
  }

  // ---------------------------------------------------------------- actions

  /** Sends `text` as the user (what the send button does). Ignored while a reply is streaming. */
  async send(text: string): Promise<void> {
    const message = text.trim();
    if (!this.chat.session || !message || this.busy) return;
    this.transcriptScroll.stickToBottom = true;
    this.emit('parley-message-sent', { text: message, conversationId: this.chat.state.conversationId, kind: 'send' });
    await this.chat.send(message);
  }

  /** Stops the reply being streamed (and any reply being read aloud); what arrived stays, marked as interrupted. */
  stop(): void {
    this.voiceOut.silence();
    this.chat.stop();
  }

  /** Opens the launcher panel (`mode="launcher"`). */
  show(): void {
    this.open = true;
  }

  /** Closes the launcher panel and returns focus to the launcher button. */
  hide(): void {
    this.open = false;
  }

  private onSubmit(event: Event): void {
    event.preventDefault();
    const text = this.draft;
    if (!text.trim() || this.busy || !this.chat.session) return;
    this.draft = '';
    this.voiceOut.silence();
    this.voiceOut.unlock(); // inside the gesture, so the reply can be spoken on iOS
    void this.send(text);
  }

  private onInputKeydown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.onSubmit(event);
    }
  }

  private onPanelKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    if (this.voiceIn.phase !== 'off' || this.handsFree) {
      event.preventDefault();
      this.voiceIn.stop(true); // what was heard is dropped
      if (!this.speakReplies) this.voiceOut.silence();
    } else if (this.busy) {
      event.preventDefault();
      this.stop();
    } else if (this.mode === 'launcher' && this.open) {
      event.preventDefault();
      this.open = false;
      this.updateComplete.then(() => this.launcherButton?.focus());
    }
  }

  private toggleOpen(): void {
    this.open = !this.open;
  }

  private closePanel(): void {
    this.open = false;
    this.updateComplete.then(() => this.launcherButton?.focus());
  }

  private async retry(): Promise<void> {
    if (this.voiceIn.error) this.voiceIn.retry(); // the microphone failed: the user fixed it (or not), listen again
    else await this.chat.retry();
  }

  private async regenerate(entryId: string): Promise<void> {
    if (!this.chat.session || this.busy) return;
    this.transcriptScroll.stickToBottom = true;
    await this.chat.regenerate(entryId);
  }

  private startEdit(key: string, text: string): void {
    this.editingKey = key;
    this.editDraft = text;
    this.updateComplete.then(() => this.renderRoot.querySelector<HTMLTextAreaElement>('.edit textarea')?.focus());
  }

  private cancelEdit(): void {
    const key = this.editingKey;
    this.editingKey = null;
    this.updateComplete.then(() => {
      const button = key ? this.renderRoot.querySelector<HTMLButtonElement>(`[data-edit="${CSS.escape(key)}"]`) : null;
      (button ?? this.input)?.focus();
    });
  }

  private async submitEdit(event: Event): Promise<void> {
    event.preventDefault();
    const key = this.editingKey;
    // The entry's id now (a temporary id may have been renamed since editing began).
    const id = this.chat.items.find((item) => item.key === key)?.entry.id;
    const text = this.editDraft.trim();
    if (!this.chat.session || !id || !text || this.busy) return;
    this.editingKey = null;
    this.transcriptScroll.stickToBottom = true;
    this.emit('parley-message-sent', { text, conversationId: this.chat.state.conversationId, kind: 'edit' });
    this.input?.focus();
    await this.chat.edit(id, text);
  }

  private onEditKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.cancelEdit();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      void this.submitEdit(event);
    }
  }

  private async toggleList(): Promise<void> {
    this.showList = !this.showList;
    if (this.showList) {
      await this.chat.refreshConversations();
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('.conversations h3')?.focus();
    } else {
      await this.updateComplete;
      this.input?.focus();
    }
  }

  private async openConversation(id: string): Promise<void> {
    if (!this.chat.session) return;
    this.showList = false;
    this.editingKey = null;
    this.transcriptScroll.stickToBottom = true;
    await this.chat.open(id);
    await this.updateComplete;
    this.input?.focus();
  }

  private async deleteConversation(id: string): Promise<void> {
    if (!this.chat.session) return;
    await this.chat.delete(id);
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('.conversations h3')?.focus();
  }

  private newConversation(): void {
    if (!this.chat.session) return;
    if (this.busy) this.stop();
    this.voiceOut.silence();
    this.chat.reset();
    this.showList = false;
    this.editingKey = null;
    this.updateComplete.then(() => this.input?.focus());
  }

  // ---------------------------------------------------------------- search (transcript-search.ts, loaded on first use)

  #search: TranscriptSearch | null = null;
  /** Search steps run one after another (typing, Enter, the module loading). */
  #searchQueue: Promise<unknown> = Promise.resolve();

  private searchStep(step: (search: TranscriptSearch) => void | Promise<void>, reveal = true): Promise<unknown> {
    this.#searchQueue = this.#searchQueue.then(async () => {
      this.#search ??= new (await import('./transcript-search.js')).TranscriptSearch(
        () => this.renderRoot.querySelector('.transcript'),
        (messages) => this.placeholders.renderInFull(messages),
      );
      if (!this.searchOpen) return;
      await step(this.#search);
      if (!this.searchOpen) return this.#search.clear(); // closed while placeholders were rendered in full
      this.searchStatus = this.searchStatusText(this.#search);
      if (reveal && this.#search.total) {
        this.transcriptScroll.stickToBottom = false;
        await this.#search.reveal();
      }
    }).catch((error: unknown) => console.warn('[parley] <agent-chat> search failed:', error));
    return this.#searchQueue;
  }

  private searchStatusText(search: TranscriptSearch): string {
    const t = this.text;
    if (!this.renderRoot.querySelector<HTMLInputElement>('.search input')?.value.trim()) return '';
    return search.total ? t.searchMatches(search.current, search.total) : t.searchNoMatches;
  }

  private async toggleSearch(): Promise<void> {
    if (this.searchOpen && !this.showList) {
      this.closeSearch(true);
      return;
    }
    this.showList = false;
    this.searchOpen = true;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLInputElement>('.search input')?.focus();
    void this.searchStep(() => {}, false); // loads the search code while the reader types
  }

  private closeSearch(focusButton: boolean): void {
    this.#search?.clear();
    this.searchOpen = false;
    this.searchStatus = '';
    if (focusButton) this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('.search-toggle')?.focus());
  }

  private onSearchInput(event: Event): void {
    const query = (event.target as HTMLInputElement).value;
    void this.searchStep((search) => search.find(query));
  }

  private onSearchKeydown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      void this.searchStep((search) => search.move(event.shiftKey ? -1 : 1));
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.closeSearch(true);
    }
  }

  private onTranscriptClick(event: MouseEvent): void {
    const anchor = event.composedPath().find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement);
    if (!anchor || !anchor.closest('.markdown')) return;
    const spoof = spoofedLinkHost(anchor.textContent ?? '', anchor.href);
    if (!spoof) return;
    event.preventDefault();
    this.pendingLink = { href: anchor.href, ...spoof };
  }

  private confirmLink(): void {
    const link = this.pendingLink;
    this.pendingLink = null;
    if (link) window.open(link.href, '_blank', 'noopener,noreferrer');
  }

  // ---------------------------------------------------------------- render

  protected override render(): TemplateResult {
    const t = this.text;
    const launcher = this.mode === 'launcher';
    return html`
      <div part="base" class="base">
        ${launcher
          ? html`<button
              part="launcher"
              class="launcher"
              type="button"
              aria-label=${this.open ? t.closeChat : t.openChat}
              aria-expanded=${this.open ? 'true' : 'false'}
              aria-controls="panel"
              @click=${this.toggleOpen}
            >
              <slot name="launcher-icon">
                <svg viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
                  <path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" />
                </svg>
              </slot>
            </button>`
          : nothing}
        ${launcher
          ? html`<dialog
              part="panel"
              id="panel"
              class="panel"
              aria-label=${t.chatPanelLabel}
              ?hidden=${!this.open}
              @keydown=${this.onPanelKeydown}
              @cancel=${(e: Event) => e.preventDefault()}
              @close=${this.onPanelClose}
            >${this.renderPanelContent(t, true)}</dialog>`
          : html`<section part="panel" id="panel" class="panel" role="region" aria-label=${t.chatPanelLabel} @keydown=${this.onPanelKeydown}>
              ${this.renderPanelContent(t, false)}
            </section>`}
        <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${this.announcement}</div>
        ${this.renderLinkDialog(t)}
      </div>
    `;
  }

  private renderPanelContent(t: AgentChatStrings, launcher: boolean): TemplateResult {
    return html`
          ${this.renderHeader(t, launcher)}
          ${this.searchOpen && !this.showList ? this.renderSearch(t) : nothing}
          ${this.showList ? this.renderConversationList(t) : this.renderTranscript(t)}
          ${this.chat.state.notice ? html`<p part="notice" class="notice">${this.chat.state.notice}</p>` : nothing}
          ${this.chat.state.waiting?.length
            ? html`<p part="notice offline-notice" class="notice" role="status">${t.offlineWaiting}
                <button part="cancel-waiting-button" class="quiet" type="button" @click=${() => this.chat.cancelWaiting()}>${t.cancelWaiting}</button></p>`
            : nothing}
          ${this.renderError(t)}
          <form part="composer" class="composer" @submit=${this.onSubmit}>
            <textarea
              part="input"
              dir="auto"
              rows="1"
              aria-label=${t.inputLabel}
              placeholder=${t.inputPlaceholder}
              .value=${live(this.draft)}
              @input=${(e: Event) => { this.draft = (e.target as HTMLTextAreaElement).value; this.voiceOut.silence(); this.voiceIn.stop(); }}
              @keydown=${this.onInputKeydown}
            ></textarea>
            ${this.voiceIn.enabled ? this.renderMicButton(t) : nothing}
            ${this.busy
              ? html`<button part="stop-button" class="stop" type="button" @click=${() => { this.voiceIn.stop(); this.stop(); }}>${t.stop}</button>`
              : html`<button part="send-button" class="send primary" type="submit" ?disabled=${!this.draft.trim() || !this.chat.session}>
                  ${t.send}
                </button>`}
          </form>
          ${this.voiceIn.enabled ? this.renderVoiceBar(t) : nothing}
    `;
  }

  private renderHeader(t: AgentChatStrings, launcher: boolean): TemplateResult {
    const title = this.heading || this.chat.state.agentName || t.title;
    return html`<header part="header">
      <slot name="header"><h2 part="title" class="title" title=${title}>${title}</h2></slot>
      <div class="header-actions">
        <button
          part="history-button"
          class="quiet"
          type="button"
          aria-pressed=${this.showList ? 'true' : 'false'}
          @click=${this.toggleList}
        >
          ${t.conversations}
        </button>
        <button
          part="search-button"
          class="quiet search-toggle"
          type="button"
          aria-expanded=${this.searchOpen && !this.showList ? 'true' : 'false'}
          aria-controls="search"
          @click=${this.toggleSearch}
        >
          ${t.search}
        </button>
        <button part="new-button" class="quiet" type="button" @click=${this.newConversation}>${t.newConversation}</button>
        ${launcher
          ? html`<button part="close-button" class="quiet" type="button" aria-label=${t.closeChat} @click=${this.closePanel}>✕</button>`
          : nothing}
      </div>
    </header>`;
  }

  private renderConversationList(t: AgentChatStrings): TemplateResult {
    const list = this.chat.conversations ?? [];
    return html`<div part="conversation-list" class="conversations">
      <h3 tabindex="-1">${t.conversations}</h3>
      ${list.length === 0
        ? html`<p>${t.noConversations}</p>`
        : html`<ul>
            ${repeat(list, (c) => c.id, (c) => {
              const title = c.title || t.untitledConversation;
              const updated = new Date(c.updatedAt);
              return html`<li part="conversation">
                <button
                  part="conversation-button"
                  class="conversation-button"
                  type="button"
                  aria-current=${c.id === this.chat.state.conversationId ? 'true' : 'false'}
                  @click=${() => this.openConversation(c.id)}
                >
                  <span dir="auto">${title}</span>
                  ${Number.isNaN(updated.getTime()) ? nothing : html`<time datetime=${c.updatedAt}>${updated.toLocaleString()}</time>`}
                </button>
                <button part="delete-button" class="quiet" type="button" aria-label=${t.deleteConversation(title)} @click=${() => this.deleteConversation(c.id)}>
                  ✕
                </button>
              </li>`;
            })}
          </ul>`}
      <button type="button" class="quiet" @click=${this.toggleList}>${t.closeConversations}</button>
    </div>`;
  }

  private renderSearch(t: AgentChatStrings): TemplateResult {
    const total = this.#search?.total ?? 0;
    return html`<div part="search" class="search" id="search" role="search">
      <input
        part="search-input"
        type="search"
        dir="auto"
        aria-label=${t.searchLabel}
        placeholder=${t.searchLabel}
        @input=${this.onSearchInput}
        @keydown=${this.onSearchKeydown}
      />
      <span part="search-status" class="search-status" role="status" aria-live="polite">${this.searchStatus}</span>
      <button part="search-previous-button" class="quiet" type="button" aria-label=${t.searchPrevious} ?disabled=${!total} @click=${() => this.searchStep((s) => s.move(-1))}>
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M6 15l6-6 6 6" /></svg>
      </button>
      <button part="search-next-button" class="quiet" type="button" aria-label=${t.searchNext} ?disabled=${!total} @click=${() => this.searchStep((s) => s.move(1))}>
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M6 9l6 6 6-6" /></svg>
      </button>
      <button part="search-close-button" class="quiet" type="button" aria-label=${t.closeSearch} @click=${() => this.closeSearch(true)}>✕</button>
    </div>`;
  }

  private onTranscriptScroll = (): void => {
    this.transcriptScroll.onScroll();
    this.placeholders.renderNear();
  };

  private renderTranscript(t: AgentChatStrings): TemplateResult {
    const items = this.chat.items;
    const lastReplyId = lastReply(items)?.entry.id ?? null;
    const fullFrom = this.placeholders.begin(this.chat.state.conversationId, items);
    return html`<div
      part="transcript"
      class="transcript"
      role="region"
      aria-label=${t.transcriptLabel}
      aria-busy=${this.busy ? 'true' : 'false'}
      tabindex="0"
      @click=${this.onTranscriptClick}
      @scroll=${this.onTranscriptScroll}
    >
      ${items.length === 0 && this.chat.state.status !== 'submitted'
        ? html`<slot name="empty"><p part="empty" class="empty">${t.emptyState}</p></slot>`
        : nothing}
      ${repeat(items, (item) => item.key, (item, i) => this.renderItem(item, t, lastReplyId, i < fullFrom))}
      ${this.chat.state.status === 'submitted' ? html`<p part="thinking" class="thinking">${t.thinking}</p>` : nothing}
    </div>`;
  }

  /** `old`: the item is older than the newest HISTORY_FULL (a reply is then a placeholder until rendered in full: TranscriptPlaceholdersController). */
  private renderItem(item: TranscriptItem, t: AgentChatStrings, lastReplyId: string | null, old: boolean): TemplateResult {
    switch (item.kind) {
      case 'user':
        return this.renderUserMessage(item.key, item.entry, item.text, t);
      case 'assistant':
        return this.renderReply(item, t, item.entry.id === lastReplyId, this.placeholders.placeholder(item.key, old));
      case 'call':
        return this.renderCall(item, t);
      case 'result':
        return html`<details part="tool-call" class="tool-call">
          <summary>${t.functionResult}</summary>
          <div class="tool-body"><pre tabindex="0">${item.result}</pre></div>
        </details>`;
      case 'handoff':
        return html`<p part="handoff" class="handoff">${t.handoff(item.entry.next_agent_name)}</p>`;
    }
  }

  private renderUserMessage(key: string, entry: CachedEntry, text: string, t: AgentChatStrings): TemplateResult {
    if (this.editingKey === key) {
      return html`<form part="message message-user" class="message user edit" @submit=${this.submitEdit}>
        <textarea
          aria-label=${t.editLabel}
          dir="auto"
          .value=${live(this.editDraft)}
          @input=${(e: Event) => { this.editDraft = (e.target as HTMLTextAreaElement).value; }}
          @keydown=${this.onEditKeydown}
        ></textarea>
        <div class="edit-buttons">
          <button type="button" @click=${this.cancelEdit}>${t.cancel}</button>
          <button type="submit" class="primary" ?disabled=${!this.editDraft.trim()}>${t.saveAndSend}</button>
        </div>
      </form>`;
    }
    return html`<div part="message message-user" class="message user" data-entry-id=${entry.id}>
      <span class="visually-hidden">${t.you}:</span>
      <div part="bubble" class="bubble" dir="auto">${text}</div>
      ${this.chat.state.waiting?.includes(entry.id) ? html`<p part="waiting" class="interrupted">${t.waitingToSend}</p>` : nothing}
      ${this.busy
        ? nothing
        : html`<div part="message-actions" class="message-actions">
            <button part="edit-button" class="quiet" type="button" data-edit=${key} @click=${() => this.startEdit(key, text)}>
              ${t.edit}
            </button>
          </div>`}
    </div>`;
  }

  private renderReply({ key, entry, text }: TranscriptItem & { kind: 'assistant' }, t: AgentChatStrings, isLast: boolean, placeholder: boolean): TemplateResult {
    const streaming = entry.id === this.chat.state.streamingEntryId && this.busy;
    const interrupted = !streaming && (entry.interrupted === true || this.chat.stoppedIds.has(entry.id));
    return html`<div part="message message-assistant" class="message assistant" data-entry-id=${entry.id} data-key=${key}>
      <span class="visually-hidden">${this.chat.state.agentName || t.assistant}:</span>
      ${placeholder
        ? html`<div part="bubble" class="bubble markdown placeholder" dir="auto">${text}</div>`
        : html`<div part="bubble" class="bubble markdown" dir="auto" ${markdown(text, {
            streaming,
            cacheKey: entry.id,
            allowImageHosts: this.hostList,
            imageBlocked: t.imageBlocked,
          })}></div>`}
      ${interrupted ? html`<p part="interrupted" class="interrupted">${t.interrupted}</p>` : nothing}
      ${!streaming && entry.type === 'message.output' && (this.relayUrl || (isLast && !this.busy))
        ? html`<div part="message-actions" class="message-actions">
            ${this.relayUrl && text
              ? html`<button part="read-aloud-button" class="quiet" type="button" @click=${() => this.voiceOut.toggleReadAloud(entry.id, text)}>${this.voiceOut.speakingId === entry.id ? t.stopReading : t.readAloud}</button>`
              : nothing}
            ${isLast && !this.busy
              ? html`<button part="regenerate-button" class="quiet" type="button" @click=${() => this.regenerate(entry.id)}>${t.regenerate}</button>`
              : nothing}
          </div>`
        : nothing}
    </div>`;
  }

  private renderCall({ entry, arguments: args, result }: TranscriptItem & { kind: 'call' }, t: AgentChatStrings): TemplateResult {
    const isFunction = entry.type === 'function.call';
    return html`<details part="tool-call" class="tool-call" data-entry-id=${entry.id}>
      <summary>${isFunction ? t.functionCall(entry.name) : t.toolExecution(entry.name)}</summary>
      <div class="tool-body">
        <h3>${t.functionArguments}</h3>
        <pre tabindex="0">${args}</pre>
        ${isFunction
          ? html`<h3>${t.functionResult}</h3>
              ${result !== null ? html`<pre tabindex="0">${result}</pre>` : html`<p>${t.functionPending}</p>`}`
          : nothing}
      </div>
    </details>`;
  }

  private renderMicButton(t: AgentChatStrings): TemplateResult {
    const on = this.voiceIn.phase === 'listening';
    return html`<button part="mic-button" class="mic ${on ? 'primary' : ''}" type="button" aria-pressed=${on} aria-label=${on ? t.stopListening : t.speakMessage} ?disabled=${!this.chat.session} @click=${this.toggleMic}>
      <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M9 5a3 3 0 0 1 6 0v6a3 3 0 0 1-6 0zM5 11a7 7 0 0 0 14 0M12 18v3" /></svg>
    </button>`;
  }

  private renderVoiceBar(t: AgentChatStrings): TemplateResult {
    const status = { off: '', listening: t.voiceListening, thinking: t.voiceThinking, speaking: t.voiceSpeaking }[this.voiceIn.phase];
    return html`<div part="voice-bar" class="voice-bar">
      <button part="hands-free-button" class=${this.handsFree ? 'primary' : ''} type="button" aria-pressed=${this.handsFree} ?disabled=${!this.chat.session} @click=${() => { this.voiceOut.unlock(!this.handsFree); this.handsFree = !this.handsFree; }}>${t.handsFree}</button>
      <span part="voice-status" role="status">${status}</span>
    </div>`;
  }

  private renderError(t: AgentChatStrings): TemplateResult | typeof nothing {
    const voiceError = this.voiceIn.error;
    const error = this.chat.state.error ?? this.chat.localError;
    if (!voiceError && !error) return nothing;
    // The relay refuses this page's origin: a neutral sentence only (the site owner's details are in the
    // console and the parley-error event), and no retry, which would be refused the same way.
    const refusal = originRefusalOf(voiceError) ?? originRefusalOf(error);
    // Announced once, politely, through the live region (announceProgress); the details go to the console and the event.
    if (refusal) return html`<div part="error" class="error"><p>${t.errorMessage(refusal)}</p></div>`;
    return html`<div part="error" class="error">
      <p>${voiceError ? t.voiceErrorMessage(voiceError) : t.errorMessage(error!)}</p>
      <button part="retry-button" type="button" @click=${this.retry}>${t.retry}</button>
    </div>`;
  }

  private renderLinkDialog(t: AgentChatStrings): TemplateResult {
    const link = this.pendingLink;
    return html`<dialog part="link-dialog" class="link-dialog" aria-labelledby="link-dialog-title" @close=${() => { this.pendingLink = null; }}>
      <h2 id="link-dialog-title">${t.linkWarningTitle}</h2>
      ${link
        ? html`<p>${t.linkWarningBody(link.shown, link.real)}</p>
            <p class="real-host">${link.real}</p>`
        : nothing}
      <div class="dialog-buttons">
        <button type="button" class="cancel" @click=${() => { this.pendingLink = null; }}>${t.cancel}</button>
        <button type="button" class="primary confirm" @click=${this.confirmLink}>${t.openLink}</button>
      </div>
    </dialog>`;
  }
}
